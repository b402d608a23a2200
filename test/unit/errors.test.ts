import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GatewayError, errorBody } from '../../server/lib/errors.js';
import { toGatewayError } from '../../server/trpc/errors.js';
import { sendError } from '../../server/http/errors.js';

describe('error conversion', () => {
  it('hides internal messages and causes', () => {
    const err = toGatewayError(new Error('connection string postgres://secret@db'));
    expect(err.type).toBe('internal_error');
    expect(err.status).toBe(500);
    expect(JSON.stringify(errorBody(err))).not.toContain('secret');
    expect(errorBody(err)).toEqual({ error: { type: 'internal_error', message: 'Internal server error' } });
  });

  it('keeps a GatewayError wrapped by tRPC, with its details', () => {
    const inner = new GatewayError('insufficient_tier', 'needs team', {
      details: { upgrade: { requiredTier: 'team' } },
    });
    const err = toGatewayError(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: inner }));
    expect(err).toBe(inner);
    expect(errorBody(err)).toEqual({
      error: { type: 'insufficient_tier', message: 'needs team', upgrade: { requiredTier: 'team' } },
    });
    expect(err.status).toBe(402);
  });

  it('describes validation errors by field', () => {
    const parsed = z.object({ name: z.string() }).safeParse({ name: 1 });
    const err = toGatewayError(new TRPCError({ code: 'BAD_REQUEST', cause: parsed.error }));
    expect(err.type).toBe('invalid_request_error');
    expect(err.message).toContain('name');
  });
});

describe('retry hints on an error answer', () => {
  const answer = async (err: GatewayError) => {
    const server = createServer((_req, res) => sendError(res, err));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      return { status: res.status, headers: res.headers, body: await res.json() };
    } finally {
      server.close();
    }
  };

  it('sends Retry-After (whole seconds, rounded up) and retry-after-ms, or x-should-retry: false', async () => {
    const wait = await answer(new GatewayError('provider_error', 'all failed', { retryAfterMs: 1_200 }));
    expect(wait.status).toBe(502);
    expect(wait.headers.get('retry-after')).toBe('2');
    expect(wait.headers.get('retry-after-ms')).toBe('1200');
    const never = await answer(new GatewayError('no_capable_provider', 'nobody can', { retryable: false }));
    expect(never.headers.get('x-should-retry')).toBe('false');
    expect(never.body).toEqual({ error: { type: 'no_capable_provider', message: 'nobody can' } });
    const plain = await answer(new GatewayError('internal_error', 'x'));
    expect(plain.headers.get('x-should-retry')).toBeNull();
    expect(plain.headers.get('retry-after')).toBeNull();
  });
});
