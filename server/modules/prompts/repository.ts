import { and, desc, eq, max } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import {
  promptTemplates,
  promptVersions,
  type PromptTemplateRow,
  type PromptVersionStatus,
  type PromptVersionRow,
} from '../../db/schema/index.js';

export const promptsRepository = {
  list(db: Executor, tenantId: string): Promise<PromptTemplateRow[]> {
    return db
      .select()
      .from(promptTemplates)
      .where(eq(promptTemplates.tenantId, tenantId))
      .orderBy(desc(promptTemplates.createdAt), desc(promptTemplates.id));
  },

  async get(db: Executor, tenantId: string, id: string, forUpdate = false): Promise<PromptTemplateRow | undefined> {
    const q = db
      .select()
      .from(promptTemplates)
      .where(and(eq(promptTemplates.tenantId, tenantId), eq(promptTemplates.id, id)))
      .limit(1);
    return (forUpdate ? await q.for('update') : await q)[0];
  },

  async insert(db: Executor, row: typeof promptTemplates.$inferInsert): Promise<PromptTemplateRow> {
    const [created] = await db.insert(promptTemplates).values(row).returning();
    return created!;
  },

  async setPublished(db: Executor, tenantId: string, id: string, versionId: string): Promise<PromptTemplateRow> {
    const [row] = await db
      .update(promptTemplates)
      .set({ publishedVersionId: versionId, updatedAt: new Date() })
      .where(and(eq(promptTemplates.tenantId, tenantId), eq(promptTemplates.id, id)))
      .returning();
    return row!;
  },

  async remove(db: Executor, tenantId: string, id: string): Promise<boolean> {
    const rows = await db
      .delete(promptTemplates)
      .where(and(eq(promptTemplates.tenantId, tenantId), eq(promptTemplates.id, id)))
      .returning({ id: promptTemplates.id });
    return rows.length > 0;
  },

  versions(db: Executor, tenantId: string, templateId: string): Promise<PromptVersionRow[]> {
    return db
      .select()
      .from(promptVersions)
      .where(and(eq(promptVersions.tenantId, tenantId), eq(promptVersions.templateId, templateId)))
      .orderBy(desc(promptVersions.version));
  },

  async version(db: Executor, tenantId: string, id: string): Promise<PromptVersionRow | undefined> {
    const rows = await db
      .select()
      .from(promptVersions)
      .where(and(eq(promptVersions.tenantId, tenantId), eq(promptVersions.id, id)))
      .limit(1);
    return rows[0];
  },

  async nextVersion(db: Executor, tenantId: string, templateId: string): Promise<number> {
    const [row] = await db
      .select({ n: max(promptVersions.version) })
      .from(promptVersions)
      .where(and(eq(promptVersions.tenantId, tenantId), eq(promptVersions.templateId, templateId)));
    return (row?.n ?? 0) + 1;
  },

  async insertVersion(db: Executor, row: typeof promptVersions.$inferInsert): Promise<PromptVersionRow> {
    const [created] = await db.insert(promptVersions).values(row).returning();
    return created!;
  },

  async setVersionStatus(db: Executor, tenantId: string, id: string, status: PromptVersionStatus): Promise<void> {
    await db
      .update(promptVersions)
      .set({ status })
      .where(and(eq(promptVersions.tenantId, tenantId), eq(promptVersions.id, id)));
  },
};
