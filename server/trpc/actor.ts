import type { ActorRef } from '../modules/audit/service.js';
import type { Principal } from '../modules/tokens/authenticator.js';

/** The audit-log actor for the caller. */
export function actorOf(p: Principal): ActorRef {
  return { type: 'token', id: p.tokenId };
}
