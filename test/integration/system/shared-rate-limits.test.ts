import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisRateStore } from '../../../server/gateway/limits/redis-rate-store.js';
import { SharedRateLimiter } from '../../../server/gateway/limits/shared-rate-limiter.js';
import { createLogger } from '../../../server/lib/logger.js';
import { startChatEnv, type ChatEnv } from '../../support/chat-env.js';
import { startTcpRelay } from '../../support/tcp-relay.js';
import { expectTypedError } from '../../support/security.js';

// A token's rate limit across two gateway nodes on one database, shared through a real Redis
// (REDIS_URL, else the machine's 127.0.0.1:6379; the file is skipped when neither answers), and
// what a node does when its Redis is unreachable.

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisAnswers(url: string): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    retryStrategy: () => null,
  });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

const SYNC_MS = 20;
const body = { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], temperature: 0.5 };

async function chat(baseUrl: string, token: string) {
  const res = await fetch(`${baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

/** Longer than a few sync intervals: every node has sent its counts and read the others'. */
const synced = () => new Promise((r) => setTimeout(r, SYNC_MS * 5));

async function limitedToken(c: ChatEnv, rateLimitPerMinute: number): Promise<string> {
  const created = await c.env.http('POST', '/v1/admin/tokens', {
    token: c.tenant.token,
    body: { name: 'limited', rateLimitPerMinute },
  });
  expect(created.status).toBe(200);
  return created.body.token;
}

describe.skipIf(!(await redisAnswers(REDIS_URL)))('rate limits shared through Redis', () => {
  let c: ChatEnv;
  let second: { baseUrl: string };

  beforeAll(async () => {
    c = await startChatEnv({ env: { REDIS_URL, GATEWAY_RATE_SYNC_MS: String(SYNC_MS) } });
    second = await c.env.addNode();
  }, 60_000);

  afterAll(() => c?.close());

  it('counts a token once across nodes: what one node admitted, the other refuses', async () => {
    const token = await limitedToken(c, 4);
    expect((await chat(c.env.baseUrl, token)).status).toBe(200);
    expect((await chat(c.env.baseUrl, token)).status).toBe(200);
    await synced();
    const third = await chat(second.baseUrl, token);
    expect(third.status).toBe(200);
    expect(third.headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await chat(second.baseUrl, token)).status).toBe(200);
    await synced();
    for (const node of [c.env.baseUrl, second.baseUrl]) {
      const refused = await chat(node, token);
      expectTypedError(refused, 429, 'rate_limit_error');
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('reports a Redis that stops answering without refusing (a partition) as unreachable, and counts on this node meanwhile', async () => {
    const relay = await startTcpRelay(REDIS_URL);
    const limiter = new SharedRateLimiter(new RedisRateStore(relay.url, createLogger('silent'), 200), {
      syncMs: SYNC_MS,
      logger: createLogger('silent'),
    });
    limiter.start();
    try {
      const key = `tok_partition_${Date.now()}`;
      await limiter.ready?.(key);
      expect(limiter.take(key, 5).allowed).toBe(true);
      await synced();
      expect(limiter.storeReachable).toBe(true);
      relay.silence();
      const until = Date.now() + 3_000;
      while (limiter.storeReachable && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(limiter.storeReachable).toBe(false);
      // Still deciding, on this node's own counts.
      for (let i = 0; i < 4; i++) expect(limiter.take(key, 5).allowed).toBe(true);
      expect(limiter.take(key, 5).allowed).toBe(false);
    } finally {
      relay.close();
      await Promise.race([limiter.close(), new Promise((r) => setTimeout(r, 1_000))]);
    }
  });

  it('reports the shared store in /health', async () => {
    const health = await c.env.http('GET', '/health');
    expect(health.body).toMatchObject({ status: 'ok', rateLimits: { shared: true, reachable: true } });
  });

  it('keeps other tokens apart', async () => {
    const a = await limitedToken(c, 1);
    const b = await limitedToken(c, 1);
    expect((await chat(c.env.baseUrl, a)).status).toBe(200);
    await synced();
    expect((await chat(second.baseUrl, b)).status).toBe(200);
    await synced();
    expect((await chat(second.baseUrl, a)).status).toBe(429);
    expect((await chat(c.env.baseUrl, b)).status).toBe(429);
  });
});

describe('rate limits with an unreachable Redis', () => {
  let c: ChatEnv;

  beforeAll(async () => {
    // Nothing listens on port 1.
    c = await startChatEnv({ env: { REDIS_URL: 'redis://127.0.0.1:1', GATEWAY_RATE_SYNC_MS: String(SYNC_MS) } });
  }, 60_000);

  afterAll(() => c?.close());

  it('serves requests and enforces the limit on each node by itself', async () => {
    const token = await limitedToken(c, 2);
    expect((await chat(c.env.baseUrl, token)).status).toBe(200);
    await synced();
    expect((await chat(c.env.baseUrl, token)).status).toBe(200);
    expectTypedError(await chat(c.env.baseUrl, token), 429, 'rate_limit_error');
    const health = await c.env.http('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      status: 'degraded',
      database: { reachable: true },
      rateLimits: { shared: true, reachable: false },
    });
  });
});
