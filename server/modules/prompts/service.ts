import type { z } from 'zod';
import type { Database, Executor } from '../../db/client.js';
import type { PromptTemplateRow, PromptVersionRow } from '../../db/schema/index.js';
import { GatewayError, notFound } from '../../lib/errors.js';
import { randomId } from '../../lib/ids.js';
import type { ActorRef, AuditService } from '../audit/service.js';
import { rolloutsRepository } from './rollout-repository.js';
import { promptsRepository } from './repository.js';
import type {
  CreateTemplateInput,
  CreateVersionInput,
  PromptTemplate,
  PromptTemplateDetail,
  PromptVersion,
  PublishInput,
} from './schemas.js';
import { checkMessages } from './template-text.js';

export const templateId = () => `pt_${randomId()}`;
export const versionId = () => `pv_${randomId()}`;

export interface PromptServiceDeps {
  db: Database;
  audit: AuditService;
}

export class PromptService {
  constructor(private readonly d: PromptServiceDeps) {}

  async list(tenantId: string) {
    return { items: (await promptsRepository.list(this.d.db, tenantId)).map(templateDto) };
  }

  async get(tenantId: string, id: string): Promise<z.infer<typeof PromptTemplateDetail>> {
    const row = await promptsRepository.get(this.d.db, tenantId, id);
    if (!row) throw notFound('Prompt template', id);
    const versions = await promptsRepository.versions(this.d.db, tenantId, id);
    return { ...templateDto(row), versions: versions.map(versionDto) };
  }

  async listVersions(tenantId: string, id: string) {
    return { items: (await this.get(tenantId, id)).versions };
  }

  async create(
    tenantId: string,
    actor: ActorRef,
    input: z.infer<typeof CreateTemplateInput>,
  ): Promise<z.infer<typeof PromptTemplate>> {
    const variables = input.messages ? checkMessages(input.messages) : [];
    try {
      const row = await this.d.db.transaction(async (tx) => {
        let template = await promptsRepository.insert(tx, {
          id: templateId(),
          tenantId,
          name: input.name,
          description: input.description ?? null,
        });
        if (input.messages) {
          const v = await promptsRepository.insertVersion(tx, {
            id: versionId(),
            tenantId,
            templateId: template.id,
            version: 1,
            messages: input.messages,
            variables,
            status: 'published',
          });
          template = await promptsRepository.setPublished(tx, tenantId, template.id, v.id);
        }
        await this.d.audit.record(tx, {
          tenantId,
          actor,
          action: 'prompt.create',
          targetType: 'prompt_template',
          targetId: template.id,
          after: { name: template.name, publishedVersionId: template.publishedVersionId },
        });
        return template;
      });
      return templateDto(row);
    } catch (err) {
      if ((err as { cause?: { code?: string } }).cause?.code === '23505' || (err as { code?: string }).code === '23505')
        throw new GatewayError('conflict_error', `A prompt template named '${input.name}' already exists`);
      throw err;
    }
  }

  async remove(tenantId: string, actor: ActorRef, id: string) {
    await this.d.db.transaction(async (tx) => {
      const row = await promptsRepository.get(tx, tenantId, id, true);
      if (!row) throw notFound('Prompt template', id);
      if (await rolloutsRepository.activeFor(tx, tenantId, id))
        throw new GatewayError(
          'conflict_error',
          `Prompt template '${id}' has an active rollout: promote or revert it first`,
        );
      await promptsRepository.remove(tx, tenantId, id);
      await this.d.audit.record(tx, {
        tenantId,
        actor,
        action: 'prompt.delete',
        targetType: 'prompt_template',
        targetId: id,
        before: { name: row.name, publishedVersionId: row.publishedVersionId },
      });
    });
    return { id, deleted: true as const };
  }

  async createVersion(
    tenantId: string,
    actor: ActorRef,
    input: z.infer<typeof CreateVersionInput>,
  ): Promise<z.infer<typeof PromptVersion>> {
    const variables = checkMessages(input.messages);
    const row = await this.d.db.transaction(async (tx) => {
      // Locked: two versions added at once get consecutive numbers.
      const template = await promptsRepository.get(tx, tenantId, input.id, true);
      if (!template) throw notFound('Prompt template', input.id);
      const v = await promptsRepository.insertVersion(tx, {
        id: versionId(),
        tenantId,
        templateId: template.id,
        version: await promptsRepository.nextVersion(tx, tenantId, template.id),
        messages: input.messages,
        variables,
        note: input.note ?? null,
        status: 'draft',
      });
      await this.d.audit.record(tx, {
        tenantId,
        actor,
        action: 'prompt.version.create',
        targetType: 'prompt_version',
        targetId: v.id,
        after: { templateId: template.id, version: v.version },
      });
      return v;
    });
    return versionDto(row);
  }

  async publish(
    tenantId: string,
    actor: ActorRef,
    input: z.infer<typeof PublishInput>,
  ): Promise<z.infer<typeof PromptTemplate>> {
    const row = await this.d.db.transaction(async (tx) => {
      const template = await promptsRepository.get(tx, tenantId, input.id, true);
      if (!template) throw notFound('Prompt template', input.id);
      const version = await promptsRepository.version(tx, tenantId, input.versionId);
      if (!version || version.templateId !== template.id) throw notFound('Prompt version', input.versionId);
      if (await rolloutsRepository.activeFor(tx, tenantId, template.id))
        throw new GatewayError(
          'conflict_error',
          `Prompt template '${template.id}' has an active rollout: promote or revert it instead`,
        );
      const updated = await publishVersion(tx, template, version);
      await this.d.audit.record(tx, {
        tenantId,
        actor,
        action: 'prompt.publish',
        targetType: 'prompt_template',
        targetId: template.id,
        before: { publishedVersionId: template.publishedVersionId },
        after: { publishedVersionId: version.id },
      });
      return updated;
    });
    return templateDto(row);
  }
}

/** Makes `version` the template's published one; the one it replaces is retired. */
export async function publishVersion(
  tx: Executor,
  template: PromptTemplateRow,
  version: PromptVersionRow,
): Promise<PromptTemplateRow> {
  if (template.publishedVersionId && template.publishedVersionId !== version.id)
    await promptsRepository.setVersionStatus(tx, template.tenantId, template.publishedVersionId, 'retired');
  await promptsRepository.setVersionStatus(tx, template.tenantId, version.id, 'published');
  return promptsRepository.setPublished(tx, template.tenantId, template.id, version.id);
}

export function templateDto(r: PromptTemplateRow): z.infer<typeof PromptTemplate> {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    publishedVersionId: r.publishedVersionId,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export function versionDto(r: PromptVersionRow): z.infer<typeof PromptVersion> {
  return {
    id: r.id,
    templateId: r.templateId,
    version: r.version,
    messages: r.messages,
    variables: r.variables,
    note: r.note,
    status: r.status as z.infer<typeof PromptVersion>['status'],
    createdAt: r.createdAt.toISOString(),
  };
}
