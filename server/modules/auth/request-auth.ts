import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../../lib/errors.js';
import type { Authenticator, Principal } from '../tokens/authenticator.js';
import type { SessionCache } from './session-cache.js';

export const SESSION_COOKIE = 'gw_session';
export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

// Who is calling: a bearer token (Authorization header) or, in multi-tenant mode, a session cookie.
// A bearer header, when present, decides alone (a bad one is a 401 even beside a good cookie).
//
// A browser sends the cookie with requests other sites make it send, so a cookie-authenticated
// request that changes anything must also carry the session's CSRF token in X-CSRF-Token (a value
// another site cannot read: GET /auth/me returns it). The cookie is SameSite=Lax as well.
// Read-only members change nothing, whatever credential they use.
export class RequestAuthenticator {
  constructor(
    private readonly tokens: Authenticator,
    /** null in single-tenant mode: cookies are not looked at. */
    private readonly sessions: SessionCache | null,
  ) {}

  async authenticate(req: IncomingMessage): Promise<Principal> {
    const header = req.headers.authorization;
    const unsafe = !SAFE_METHODS.has(req.method ?? 'GET');
    const secret = header === undefined && this.sessions ? readCookie(req.headers.cookie, SESSION_COOKIE) : undefined;
    let principal: Principal;
    if (secret === undefined) {
      principal = await this.tokens.authenticate(header);
    } else {
      const session = await this.sessions!.authenticate(secret);
      if (unsafe && req.headers[CSRF_HEADER] !== session.csrf)
        throw new GatewayError(
          'permission_error',
          'A change made with a session cookie needs the X-CSRF-Token header (GET /auth/me returns its value)',
        );
      principal = session.principal;
    }
    if (unsafe && principal.role === 'read-only')
      throw new GatewayError('permission_error', 'Read-only members may not make changes or calls');
    return principal;
  }
}

/** One cookie's value from a Cookie header; undefined when absent or empty. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(value) || undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
