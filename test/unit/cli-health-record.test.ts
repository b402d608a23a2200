import { describe, expect, it } from 'vitest';
import type { RouterOutputs } from '../../sdk/index.js';
import { healthRecord } from '../../cli/commands/health.js';

// `gatewayctl health` as a table: whatever makes the gateway degraded is named in the status
// and has a row of its own, so "degraded" never appears without its reason.

type Health = RouterOutputs['system']['health'];

const healthy: Health = {
  status: 'ok',
  mode: 'single',
  version: '0.1.0',
  database: { reachable: true },
  logs: { queuedRows: 0, failingForSeconds: null },
  rateLimits: { shared: false, reachable: null },
  uptimeSeconds: 100,
};

describe('health table', () => {
  it('shows every part as fine on a healthy gateway', () => {
    expect(healthRecord(healthy)).toEqual({
      STATUS: 'ok',
      MODE: 'single',
      VERSION: '0.1.0',
      DATABASE: 'reachable',
      'LOG WRITER': 'committing',
      'RATE LIMITS': 'per process',
      UPTIME: '1m 40s',
    });
    expect(healthRecord({ ...healthy, logs: { queuedRows: 3, failingForSeconds: null } })['LOG WRITER']).toBe(
      'committing (3 rows queued)',
    );
  });

  it('names a log writer that cannot commit, with how long and how many rows wait', () => {
    const record = healthRecord({ ...healthy, status: 'degraded', logs: { queuedRows: 12, failingForSeconds: 30 } });
    expect(record).toMatchObject({
      STATUS: 'degraded: log writer cannot commit',
      DATABASE: 'reachable',
      'LOG WRITER': 'failing for 30s (12 rows queued)',
    });
  });

  it('names every cause at once: database, log writer and rate-limit Redis', () => {
    const record = healthRecord({
      ...healthy,
      status: 'degraded',
      database: { reachable: false },
      logs: { queuedRows: 1, failingForSeconds: 75 },
      rateLimits: { shared: true, reachable: false },
    });
    expect(record).toMatchObject({
      STATUS: 'degraded: database unreachable, log writer cannot commit, rate-limit Redis unreachable',
      DATABASE: 'unreachable',
      'LOG WRITER': 'failing for 1m 15s (1 row queued)',
      'RATE LIMITS': 'shared through Redis (unreachable)',
    });
  });
});
