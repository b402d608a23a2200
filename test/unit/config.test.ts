import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';

describe('configuration', () => {
  it('polls job queues every 10 s unless told otherwise, within 0.5-600 s', () => {
    expect(loadConfig({}).GATEWAY_JOBS_POLL_SECONDS).toBe(10);
    expect(loadConfig({ GATEWAY_JOBS_POLL_SECONDS: '2.5' }).GATEWAY_JOBS_POLL_SECONDS).toBe(2.5);
    expect(() => loadConfig({ GATEWAY_JOBS_POLL_SECONDS: '0.1' })).toThrow(/GATEWAY_JOBS_POLL_SECONDS/);
    expect(() => loadConfig({ GATEWAY_JOBS_POLL_SECONDS: 'soon' })).toThrow(/GATEWAY_JOBS_POLL_SECONDS/);
  });
});
