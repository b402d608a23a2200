import { describe, expect, it } from 'vitest';
import { errorMessage } from '../../server/jobs/executor.js';
import { logRetentionJob } from '../../server/jobs/handlers/log-retention.js';
import {
  DEFAULT_SCHEDULES,
  JobPayload,
  JobRegistry,
  isValidCron,
  type JobDefinition,
} from '../../server/jobs/queues.js';
import { GatewayError } from '../../server/lib/errors.js';

const job = (over: Partial<JobDefinition> = {}): JobDefinition => ({
  name: 'demo',
  description: 'A demo job',
  schedule: '*/15 * * * *',
  handler: async () => ({ summary: 'ok' }),
  ...over,
});

describe('JobRegistry', () => {
  it('keeps jobs in registration order and finds them by name', () => {
    const registry = new JobRegistry().register(job({ name: 'b' })).register(job({ name: 'a', schedule: null }));
    expect(registry.list().map((j) => j.name)).toEqual(['b', 'a']);
    expect(registry.get('a')?.schedule).toBeNull();
    expect(registry.get('missing')).toBeUndefined();
  });

  it('refuses duplicate names, names unfit for a URL path, bad schedules and timeouts', () => {
    const registry = new JobRegistry().register(job());
    expect(() => registry.register(job())).toThrow(/already registered/);
    for (const name of ['', 'Upper', 'has space', 'a/b', '-lead', 'x'.repeat(65)]) {
      expect(() => new JobRegistry().register(job({ name })), name).toThrow(/Invalid job name/);
    }
    for (const schedule of ['', 'every minute', '* * * *', '* * * * * *', '* * * * ;']) {
      expect(() => new JobRegistry().register(job({ schedule })), schedule).toThrow(/invalid cron/);
    }
    expect(() => new JobRegistry().register(job({ timeoutSeconds: 0 }))).toThrow(/timeoutSeconds/);
    expect(() => new JobRegistry().register(job({ timeoutSeconds: 86_400 }))).toThrow(/timeoutSeconds/);
  });

  it('refuses registrations once sealed (the runner has started)', () => {
    const registry = new JobRegistry().register(job());
    registry.seal();
    expect(() => registry.register(job({ name: 'late' }))).toThrow(/after the job runner started/);
  });
});

describe('schedules and payloads', () => {
  it('accepts the default schedules and common cron forms', () => {
    for (const cron of [
      ...Object.values(DEFAULT_SCHEDULES),
      '* * * * *',
      '0 0 1 1 *',
      '0 9-17 * * MON-FRI',
      '5,35 */2 * * 0',
    ]) {
      expect(isValidCron(cron), cron).toBe(true);
    }
  });

  it('allows an optional tenant id and nothing else', () => {
    expect(JobPayload.parse({})).toEqual({});
    expect(JobPayload.parse({ tenantId: 'ten_1' })).toEqual({ tenantId: 'ten_1' });
    expect(JobPayload.safeParse({ tenantId: '' }).success).toBe(false);
    expect(JobPayload.safeParse({ tenantId: 7 }).success).toBe(false);
    expect(JobPayload.safeParse({ tenant: 'ten_1' }).success).toBe(false);
  });
});

describe('errorMessage', () => {
  it('keeps the message only, never the stack, and bounds its size', () => {
    const err = new Error('upstream said no');
    expect(errorMessage(err)).toBe('upstream said no');
    expect(errorMessage(new GatewayError('provider_error', 'bad gateway'))).toBe('bad gateway');
    expect(errorMessage('plain text')).toBe('plain text');
    expect(errorMessage({ weird: true })).toBe('unknown error');
    expect(errorMessage(new TypeError(''))).toBe('TypeError');
    const long = errorMessage(new Error('x'.repeat(10_000)));
    expect(long.length).toBe(2_000);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('logRetentionJob', () => {
  it('runs daily by default, can be made on-demand, and refuses a bad period', () => {
    expect(logRetentionJob({ retentionDays: 30 })).toMatchObject({
      name: 'log-retention',
      schedule: DEFAULT_SCHEDULES['log-retention'],
    });
    expect(logRetentionJob({ retentionDays: 30, schedule: null }).schedule).toBeNull();
    expect(logRetentionJob({ retentionDays: 0 }).description).toMatch(/keeps everything/);
    expect(() => logRetentionJob({ retentionDays: -1 })).toThrow(/retentionDays/);
    expect(() => logRetentionJob({ retentionDays: 1.5 })).toThrow(/retentionDays/);
  });
});
