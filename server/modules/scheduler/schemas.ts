import { z } from 'zod';
import { rest } from '../../trpc/meta.js';

export const JobState = z.object({
  name: z.string().describe('Job name, e.g. log-retention'),
  description: z.string(),
  schedule: z.string().nullable().describe('Cron expression (UTC); null when the job runs only on demand'),
  lastStartedAt: z
    .string()
    .nullable()
    .describe('ISO 8601 timestamp of the last run in this workspace; null when never run'),
  lastFinishedAt: z.string().nullable().describe('ISO 8601 timestamp the last run finished; null when never run'),
  outcome: z
    .enum(['running', 'succeeded', 'failed'])
    .nullable()
    .describe('Outcome of the last run; null when never run'),
  error: z.string().nullable().describe('Error message of the last run when it failed'),
  summary: z.string().nullable().describe('What the last run did, when it succeeded'),
  runCount: z.number().int().describe('Finished runs in this workspace'),
});

export const JobList = z.object({ items: z.array(JobState) });

export const RunJobInput = z.object({ name: z.string().min(1).max(64).describe('Job name') }).strict();

const tag = 'Scheduler';
export const schedulerMeta = {
  list: rest(
    'GET',
    '/v1/admin/scheduler/jobs',
    tag,
    "List background jobs with their schedule and this workspace's last run",
    { admin: true },
  ),
  run: rest(
    'POST',
    '/v1/admin/scheduler/jobs/{name}/run',
    tag,
    'Run a job now for this workspace and return its outcome',
    {
      admin: true,
      errors: [409],
      description:
        'Waits for the run to finish. A failing job answers 200 with outcome "failed" and its error; a run already in progress answers 409.',
    },
  ),
};
