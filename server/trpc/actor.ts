import type { ActorRef } from '../modules/audit/service.js';
import type { TeamCaller } from '../modules/team/service.js';
import type { Principal } from '../modules/tokens/authenticator.js';

/** The audit-log actor for the caller: the signed-in user for a session, else the token. */
export function actorOf(p: Principal): ActorRef {
  if (p.sessionId && p.userId) return { type: 'user', id: p.userId };
  return { type: 'token', id: p.tokenId };
}

/** The caller of a team change: a member's own role, or admin for a workspace token of no member. */
export function teamCallerOf(p: Principal): TeamCaller {
  return { actor: actorOf(p), role: p.role ?? (p.admin ? 'admin' : 'member') };
}
