import type { z } from 'zod';
import type { Database } from '../../db/client.js';
import type { JobRunRow } from '../../db/schema/index.js';
import { notFound } from '../../lib/errors.js';
import type { JobInfo } from '../../jobs/boss.js';
import { jobRunsRepository } from '../../jobs/repository.js';
import type { ActorRef, AuditService } from '../audit/service.js';
import type { JobState } from './schemas.js';

type Dto = z.infer<typeof JobState>;

/** What the scheduler API needs of the job runner. */
export interface JobControl {
  definitions(): JobInfo[];
  runNow(tenantId: string, name: string): Promise<JobRunRow>;
}

export class SchedulerService {
  constructor(
    private readonly db: Database,
    private readonly jobs: JobControl,
    private readonly audit: AuditService,
  ) {}

  /** Every registered job, with this workspace's last run (nulls when it never ran here). */
  async list(tenantId: string): Promise<Dto[]> {
    const runs = new Map((await jobRunsRepository.list(this.db, tenantId)).map((r) => [r.name, r]));
    return this.jobs.definitions().map((job) => toDto(job, runs.get(job.name)));
  }

  async run(tenantId: string, actor: ActorRef, name: string): Promise<Dto> {
    const job = this.jobs.definitions().find((j) => j.name === name);
    if (!job) throw notFound('Job', name);
    const row = await this.jobs.runNow(tenantId, name);
    // Recorded after the run so the entry carries its outcome; a failed run is audited too.
    await this.audit.record(this.db, {
      tenantId,
      actor,
      action: 'scheduler.run',
      targetType: 'job',
      targetId: name,
      after: { outcome: row.outcome, summary: row.summary, error: row.error },
    });
    return toDto(job, row);
  }
}

function toDto(job: JobInfo, run: JobRunRow | undefined): Dto {
  return {
    name: job.name,
    description: job.description,
    schedule: job.schedule,
    lastStartedAt: run?.lastStartedAt?.toISOString() ?? null,
    lastFinishedAt: run?.lastFinishedAt?.toISOString() ?? null,
    outcome: (run?.outcome as Dto['outcome'] | undefined) ?? null,
    error: run?.error ?? null,
    summary: run?.summary ?? null,
    runCount: run?.runCount ?? 0,
  };
}
