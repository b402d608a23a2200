import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { requestTimeoutOptions } from '../../server/http/server-timeouts.js';

describe('configuration', () => {
  it('polls job queues every 10 s unless told otherwise, within 0.5-600 s', () => {
    expect(loadConfig({}).GATEWAY_JOBS_POLL_SECONDS).toBe(10);
    expect(loadConfig({ GATEWAY_JOBS_POLL_SECONDS: '2.5' }).GATEWAY_JOBS_POLL_SECONDS).toBe(2.5);
    expect(() => loadConfig({ GATEWAY_JOBS_POLL_SECONDS: '0.1' })).toThrow(/GATEWAY_JOBS_POLL_SECONDS/);
    expect(() => loadConfig({ GATEWAY_JOBS_POLL_SECONDS: 'soon' })).toThrow(/GATEWAY_JOBS_POLL_SECONDS/);
  });

  it("reads the deployment's negotiated prices as a JSON array, refusing anything else at start", () => {
    expect(loadConfig({}).GATEWAY_PRICE_OVERRIDES).toBeUndefined();
    expect(
      loadConfig({ GATEWAY_PRICE_OVERRIDES: '[{"model": "gpt-4o", "input": 2, "output": 8, "cachedInput": 0.5}]' })
        .GATEWAY_PRICE_OVERRIDES,
    ).toEqual([{ provider: null, model: 'gpt-4o', input: 2, output: 8, cachedInput: 0.5 }]);
    expect(() => loadConfig({ GATEWAY_PRICE_OVERRIDES: '{"gpt-4o": 2' })).toThrow(/GATEWAY_PRICE_OVERRIDES: not JSON/);
    expect(() => loadConfig({ GATEWAY_PRICE_OVERRIDES: '[{"model": "gpt-4o", "input": -1, "output": 8}]' })).toThrow(
      /GATEWAY_PRICE_OVERRIDES: 0.input/,
    );
    expect(() =>
      loadConfig({ GATEWAY_PRICE_OVERRIDES: '[{"model": "gpt-4o", "input": 1, "output": 8, "x": 1}]' }),
    ).toThrow(/GATEWAY_PRICE_OVERRIDES/);
  });

  it('shares rate limits only when REDIS_URL is a URL, syncing every 100 ms unless told otherwise', () => {
    expect(loadConfig({}).REDIS_URL).toBeUndefined();
    expect(loadConfig({}).GATEWAY_RATE_SYNC_MS).toBe(100);
    expect(loadConfig({ REDIS_URL: 'redis://10.0.0.5:6379/2' }).REDIS_URL).toBe('redis://10.0.0.5:6379/2');
    expect(() => loadConfig({ REDIS_URL: 'localhost' })).toThrow(/REDIS_URL/);
    expect(() => loadConfig({ GATEWAY_RATE_SYNC_MS: '5' })).toThrow(/GATEWAY_RATE_SYNC_MS/);
  });

  it('takes an empty value (NAME= in a compose or .env file) as unset, not as 0 or an empty string', () => {
    const config = loadConfig({
      PORT: '',
      GATEWAY_EXPLORATION_RATE: '',
      REDIS_URL: '',
      GATEWAY_ADMIN_TOKEN: ' ',
      GATEWAY_JOBS: '',
    });
    expect(config.PORT).toBe(loadConfig({}).PORT);
    expect(config.GATEWAY_EXPLORATION_RATE).toBe(loadConfig({}).GATEWAY_EXPLORATION_RATE);
    expect(config.REDIS_URL).toBeUndefined();
    expect(config.GATEWAY_ADMIN_TOKEN).toBeUndefined();
    expect(config.GATEWAY_JOBS).toBe(loadConfig({}).GATEWAY_JOBS);
  });

  it('bounds how long a client may take to send its request, 0 meaning no limit as in Node', () => {
    const defaults = loadConfig({});
    expect(defaults.GATEWAY_HEADERS_TIMEOUT_MS).toBe(15_000);
    expect(defaults.GATEWAY_REQUEST_TIMEOUT_MS).toBe(60_000);
    expect(requestTimeoutOptions(defaults)).toMatchObject({ headersTimeout: 15_000, requestTimeout: 60_000 });
    // Node checks the bounds on a sweep, 30 s apart by default: much finer here.
    expect(requestTimeoutOptions(defaults).connectionsCheckingInterval).toBeLessThanOrEqual(5_000);
    // Node refuses a headers timeout above the request timeout: the request bound covers both.
    expect(
      requestTimeoutOptions(loadConfig({ GATEWAY_HEADERS_TIMEOUT_MS: '9000', GATEWAY_REQUEST_TIMEOUT_MS: '5000' })),
    ).toMatchObject({ headersTimeout: 5_000, requestTimeout: 5_000 });
    expect(
      requestTimeoutOptions(loadConfig({ GATEWAY_HEADERS_TIMEOUT_MS: '0', GATEWAY_REQUEST_TIMEOUT_MS: '0' })),
    ).toMatchObject({ headersTimeout: 0, requestTimeout: 0 });
    expect(() => loadConfig({ GATEWAY_REQUEST_TIMEOUT_MS: '-1' })).toThrow(/GATEWAY_REQUEST_TIMEOUT_MS/);
  });

  it("refuses values that would not do what they say: durations past Node's timer limit, ports past 65535, settings that would drop every row or refuse every body", () => {
    for (const name of [
      'GATEWAY_UPSTREAM_TIMEOUT_MS',
      'GATEWAY_SHUTDOWN_TIMEOUT_MS',
      'GATEWAY_LOG_DRAIN_TIMEOUT_MS',
      'GATEWAY_REQUEST_TIMEOUT_MS',
      'GATEWAY_HEADERS_TIMEOUT_MS',
      'GATEWAY_LOG_FLUSH_MS',
      'GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS',
    ]) {
      // Node fires a longer timer after 1 ms.
      expect(() => loadConfig({ [name]: '2147483648' }), name).toThrow(new RegExp(name));
      expect(loadConfig({ [name]: '2147483647' })[name as 'GATEWAY_LOG_FLUSH_MS']).toBe(2_147_483_647);
    }
    expect(() => loadConfig({ PORT: '65536' })).toThrow(/PORT/);
    expect(loadConfig({ PORT: '0' }).PORT).toBe(0);
    // No upstream call without a bound: it also bounds a circuit's probe and the wait for a stalled client.
    expect(() => loadConfig({ GATEWAY_UPSTREAM_TIMEOUT_MS: '0' })).toThrow(/GATEWAY_UPSTREAM_TIMEOUT_MS/);
    expect(() => loadConfig({ GATEWAY_LOG_BUFFER_MAX: '0' })).toThrow(/GATEWAY_LOG_BUFFER_MAX/);
    expect(() => loadConfig({ GATEWAY_MAX_BODY_BYTES: '0' })).toThrow(/GATEWAY_MAX_BODY_BYTES/);
    expect(loadConfig({ GATEWAY_MAX_BODY_BYTES: '1024' }).GATEWAY_MAX_BODY_BYTES).toBe(1024);
  });

  it('bounds the log drain at shutdown so that it ends inside a 30 s grace period with the request wait', () => {
    const defaults = loadConfig({});
    expect(defaults.GATEWAY_LOG_DRAIN_TIMEOUT_MS).toBe(10_000);
    expect(defaults.GATEWAY_SHUTDOWN_TIMEOUT_MS + defaults.GATEWAY_LOG_DRAIN_TIMEOUT_MS).toBeLessThan(30_000);
    expect(loadConfig({ GATEWAY_LOG_DRAIN_TIMEOUT_MS: '2500' }).GATEWAY_LOG_DRAIN_TIMEOUT_MS).toBe(2_500);
  });
});
