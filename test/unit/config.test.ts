import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';

describe('configuration', () => {
  it('polls job queues every 10 s unless told otherwise, within 0.5-600 s', () => {
    expect(loadConfig({}).GATEWAY_JOBS_POLL_SECONDS).toBe(10);
    expect(loadConfig({ GATEWAY_JOBS_POLL_SECONDS: '2.5' }).GATEWAY_JOBS_POLL_SECONDS).toBe(2.5);
    expect(() => loadConfig({ GATEWAY_JOBS_POLL_SECONDS: '0.1' })).toThrow(/GATEWAY_JOBS_POLL_SECONDS/);
    expect(() => loadConfig({ GATEWAY_JOBS_POLL_SECONDS: 'soon' })).toThrow(/GATEWAY_JOBS_POLL_SECONDS/);
  });

  it('shares rate limits only when REDIS_URL is a URL, syncing every 100 ms unless told otherwise', () => {
    expect(loadConfig({}).REDIS_URL).toBeUndefined();
    expect(loadConfig({}).GATEWAY_RATE_SYNC_MS).toBe(100);
    expect(loadConfig({ REDIS_URL: 'redis://10.0.0.5:6379/2' }).REDIS_URL).toBe('redis://10.0.0.5:6379/2');
    expect(() => loadConfig({ REDIS_URL: 'localhost' })).toThrow(/REDIS_URL/);
    expect(() => loadConfig({ GATEWAY_RATE_SYNC_MS: '5' })).toThrow(/GATEWAY_RATE_SYNC_MS/);
  });

  it('takes an empty value (NAME= in a compose or .env file) as unset, not as 0 or an empty string', () => {
    const config = loadConfig({ PORT: '', GATEWAY_EXPLORATION_RATE: '', REDIS_URL: '', GATEWAY_ADMIN_TOKEN: ' ', GATEWAY_JOBS: '' });
    expect(config.PORT).toBe(loadConfig({}).PORT);
    expect(config.GATEWAY_EXPLORATION_RATE).toBe(loadConfig({}).GATEWAY_EXPLORATION_RATE);
    expect(config.REDIS_URL).toBeUndefined();
    expect(config.GATEWAY_ADMIN_TOKEN).toBeUndefined();
    expect(config.GATEWAY_JOBS).toBe(loadConfig({}).GATEWAY_JOBS);
  });
});
