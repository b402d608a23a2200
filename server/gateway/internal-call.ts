import { performance } from 'node:perf_hooks';
import type { CancelSignal } from '../lib/cancel-signal.js';
import type { ChatCall } from './types.js';
import { parseChatBody } from './validate.js';

/**
 * A chat call made by the gateway itself (the judge, evals): it runs through the same core, but
 * writes only cost rows (under `requestId`, e.g. judge-req_...) and never a request row, so it
 * does not count as traffic, and it is never sampled for judging.
 */
export function internalCall(init: {
  tenantId: string;
  requestId: string;
  body: unknown;
  signal?: CancelSignal;
}): ChatCall {
  const body = parseChatBody(init.body);
  return {
    requestId: init.requestId,
    tenantId: init.tenantId,
    tokenId: null,
    body,
    messages: body.messages as ChatCall['messages'],
    headerHints: {},
    signal: init.signal ?? AbortSignal.timeout(120_000),
    startedAt: performance.now(),
    createdAt: new Date(),
    costOnly: true,
  };
}
