import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GatewayError, errorBody } from '../../server/lib/errors.js';
import { toGatewayError } from '../../server/trpc/errors.js';

describe('error conversion', () => {
  it('hides internal messages and causes', () => {
    const err = toGatewayError(new Error('connection string postgres://secret@db'));
    expect(err.type).toBe('internal_error');
    expect(err.status).toBe(500);
    expect(JSON.stringify(errorBody(err))).not.toContain('secret');
    expect(errorBody(err)).toEqual({ error: { type: 'internal_error', message: 'Internal server error' } });
  });

  it('keeps a GatewayError wrapped by tRPC, with its details', () => {
    const inner = new GatewayError('insufficient_tier', 'needs team', { details: { upgrade: { requiredTier: 'team' } } });
    const err = toGatewayError(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: inner }));
    expect(err).toBe(inner);
    expect(errorBody(err)).toEqual({ error: { type: 'insufficient_tier', message: 'needs team', upgrade: { requiredTier: 'team' } } });
    expect(err.status).toBe(402);
  });

  it('describes validation errors by field', () => {
    const parsed = z.object({ name: z.string() }).safeParse({ name: 1 });
    const err = toGatewayError(new TRPCError({ code: 'BAD_REQUEST', cause: parsed.error }));
    expect(err.type).toBe('invalid_request_error');
    expect(err.message).toContain('name');
  });
});
