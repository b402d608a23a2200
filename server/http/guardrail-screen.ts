import type { ServerResponse } from 'node:http';
import { logUnrouted } from '../gateway/accounting.js';
import type { DataPlane } from '../gateway/data-plane.js';
import type { Hit } from '../gateway/guardrails/gate.js';
import type { ChatCall } from '../gateway/types.js';
import { GatewayError } from '../lib/errors.js';
import type { Services } from '../services.js';

// The guardrails step of a data-plane call (DESIGN.md section 3: after validation, before routing):
// the workspace's enabled rules over the text the model would read. A flag lets the call go on; a
// block answers 400 guardrail_error naming the rule, with a request row (status error) and no cost
// row, and no upstream call. Either way X-Gateway-Guardrail names the rules that fired, and each
// fired rule is queued for the guardrail log and the audit log.

export const GUARDRAIL_HEADER = 'x-gateway-guardrail';

export function screenCall(
  services: Services,
  dataPlane: DataPlane,
  call: ChatCall,
  text: () => string,
  res: ServerResponse,
  streamed: boolean,
): void {
  const gate = services.guardrails.gate;
  if (!gate.active(call.tenantId)) return;
  const verdict = gate.screen(call.tenantId, text());
  if (!verdict) return;
  const endpoint = call.endpoint ?? 'chat';
  const at = new Date();
  for (const hit of verdict.hits)
    services.guardrails.events.record({
      tenantId: call.tenantId,
      requestId: call.requestId,
      tokenId: call.tokenId ?? null,
      endpoint,
      hit,
      at,
    });
  res.setHeader(GUARDRAIL_HEADER, headerValue(verdict.hits));
  const blocked = verdict.blockedBy;
  if (!blocked) return;
  logUnrouted(
    dataPlane.logWriter,
    call,
    call.body.model ? 'user-override' : 'classification',
    'guardrail_error',
    streamed,
  );
  throw new GatewayError('guardrail_error', `Input blocked by guardrail rule '${blocked.ruleName}'`, {
    retryable: false,
    details: { rule: blocked.ruleName, ruleId: blocked.ruleId },
  });
}

/** Rule names, comma-separated; a name outside printable ASCII is percent-encoded (header values are Latin-1). */
function headerValue(hits: Hit[]): string {
  return hits.map((h) => (/^[\x20-\x7e]*$/.test(h.ruleName) ? h.ruleName : encodeURIComponent(h.ruleName))).join(', ');
}
