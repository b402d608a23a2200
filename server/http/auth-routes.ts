import express, { type Express, type Request, type Response } from 'express';
import { z } from 'zod';
import { GatewayError } from '../lib/errors.js';
import { describeZodError } from '../lib/zod-errors.js';
import { CSRF_HEADER, SESSION_COOKIE, readCookie } from '../modules/auth/request-auth.js';
import type { NewSession } from '../modules/auth/sign-in.js';
import type { Services } from '../services.js';
import { clientAddress } from './client-address.js';
import { reportError } from './errors.js';

// The sign-in routes (multi-tenant mode only), under /auth with no version segment: hand-written
// because they redirect browsers and set cookies. Every failure is the usual typed error body.

export const STATE_COOKIE = 'gw_auth_state';
const STATE_COOKIE_SECONDS = 600;

const Email = z.string().trim().toLowerCase().max(320).pipe(z.email());
const MagicLinkRequest = z.object({ email: Email, invite_token: z.string().max(200).optional() }).strict();
const MagicLinkVerify = z.object({ token: z.string().min(1).max(200) }).strict();
const LoginQuery = z.object({ return: z.string().max(2_000).optional(), invite_token: z.string().max(200).optional() });
const DiscoverQuery = z.object({ email: Email });
const AcsBody = z.object({
  SAMLResponse: z.string().min(1).max(1_000_000),
  RelayState: z.string().max(2_000).optional(),
});

function parse<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) throw new GatewayError('invalid_request_error', describeZodError(parsed.error));
  return parsed.data;
}

/** Express 5 hands rejected promises to the error handler; this keeps the typed body and the log. */
const handle =
  (services: Services, fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response) =>
    fn(req, res).catch((err: unknown) => reportError(services.logger, res, err));

export function mountAuthRoutes(app: Express, services: Services): void {
  if (services.config.GATEWAY_MODE !== 'multi') return;
  const { signIn } = services;
  const secure = signIn.secureCookies ? '; Secure' : '';
  const cookie = (name: string, value: string, maxAgeSeconds: number, path = '/') =>
    `${name}=${encodeURIComponent(value)}; Path=${path}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;

  const setSession = (res: Response, session: NewSession) => {
    const seconds = Math.max(1, Math.floor((session.expiresAt.getTime() - Date.now()) / 1000));
    res.append('set-cookie', cookie(SESSION_COOKIE, session.secret, seconds));
    res.setHeader('cache-control', 'no-store');
  };
  const redirect = (res: Response, status: 302 | 303, to: string) => {
    res.setHeader('cache-control', 'no-store');
    res.redirect(status, to);
  };

  const auth = express.Router();
  auth.use(express.json({ limit: '16kb' }));
  auth.use(express.urlencoded({ extended: false, limit: '1mb' }));

  auth.get(
    '/login/:provider',
    handle(services, async (req, res) => {
      const query = parse(LoginQuery, req.query);
      const { url, state } = await signIn.oauth.start(String(req.params.provider), query.return, query.invite_token);
      res.append('set-cookie', cookie(STATE_COOKIE, state, STATE_COOKIE_SECONDS, '/auth/callback'));
      redirect(res, 302, url.href);
    }),
  );

  auth.get(
    '/callback/:provider',
    handle(services, async (req, res) => {
      const search = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
      const { session, returnTo } = await signIn.oauth.callback(
        String(req.params.provider),
        search,
        readCookie(req.headers.cookie, STATE_COOKIE),
      );
      res.append('set-cookie', cookie(STATE_COOKIE, '', 0, '/auth/callback'));
      setSession(res, session);
      redirect(res, 302, returnTo ?? '/auth/me');
    }),
  );

  auth.post(
    '/magic-link/request',
    handle(services, async (req, res) => {
      const body = parse(MagicLinkRequest, req.body);
      const address = clientAddress(req, services.config.GATEWAY_TRUSTED_PROXY_HOPS);
      await signIn.magicLink.request(body.email, address, body.invite_token ?? null);
      res.status(202).json({ status: 'sent', message: 'If the address can sign in, a sign-in link is on its way' });
    }),
  );

  // The link in the mail opens this page; only its button (a POST) uses the token up, so a mail
  // scanner that follows links does not sign the user in or spend the link.
  auth.get('/magic-link/verify', (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.setHeader('cache-control', 'no-store');
    res.setHeader('referrer-policy', 'no-referrer');
    // Nothing but the form: no scripts, no framing (a framed button could be clicked for the user).
    res.setHeader('content-security-policy', "default-src 'none'; form-action 'self'; frame-ancestors 'none'");
    res.send(
      `<!doctype html><meta charset="utf-8"><title>Sign in</title><form method="post" action="/auth/magic-link/verify"><input type="hidden" name="token" value="${escapeHtml(token)}"><button type="submit">Sign in to the gateway</button></form>`,
    );
  });

  auth.post(
    '/magic-link/verify',
    handle(services, async (req, res) => {
      const { token } = parse(MagicLinkVerify, req.body);
      const session = await signIn.magicLink.verify(token);
      setSession(res, session);
      if (req.is('application/x-www-form-urlencoded')) return redirect(res, 303, '/auth/me');
      res.json(await me(services, session.tenantId, session.userId, 'session', session.csrf));
    }),
  );

  auth.get(
    '/saml/discover',
    handle(services, async (req, res) => {
      res.json(await signIn.saml.discover(parse(DiscoverQuery, req.query).email));
    }),
  );

  auth.get(
    '/saml/:tenantId/start',
    handle(services, async (req, res) => {
      const query = parse(LoginQuery, req.query);
      const url = await signIn.saml.start(String(req.params.tenantId), query.return, query.invite_token);
      redirect(res, 302, url.href);
    }),
  );

  auth.post(
    '/saml/:tenantId/acs',
    handle(services, async (req, res) => {
      const body = parse(AcsBody, req.body);
      const { session, returnTo } = await signIn.saml.acs(String(req.params.tenantId), body.SAMLResponse);
      setSession(res, session);
      redirect(res, 303, returnTo ?? '/auth/me');
    }),
  );

  auth.post(
    '/logout',
    handle(services, async (req, res) => {
      const secret = readCookie(req.headers.cookie, SESSION_COOKIE);
      if (!secret || !signIn.sessions) throw new GatewayError('auth_error', 'Not signed in');
      const session = await signIn.sessions.authenticate(secret);
      if (req.headers[CSRF_HEADER] !== session.csrf)
        throw new GatewayError(
          'permission_error',
          'Signing out needs the X-CSRF-Token header (GET /auth/me returns its value)',
        );
      const p = session.principal;
      await signIn.signIn.signOut(p.tenantId, p.userId!, p.sessionId!);
      signIn.sessions.invalidate();
      res.append('set-cookie', cookie(SESSION_COOKIE, '', 0));
      res.json({ signedOut: true });
    }),
  );

  auth.get(
    '/me',
    handle(services, async (req, res) => {
      const secret =
        req.headers.authorization === undefined ? readCookie(req.headers.cookie, SESSION_COOKIE) : undefined;
      if (secret && signIn.sessions) {
        const session = await signIn.sessions.authenticate(secret);
        res.setHeader('cache-control', 'no-store');
        return void res.json(
          await me(services, session.principal.tenantId, session.principal.userId!, 'session', session.csrf),
        );
      }
      const principal = await signIn.requestAuth.authenticate(req);
      res.json(await me(services, principal.tenantId, principal.userId ?? null, 'token', null));
    }),
  );

  app.use('/auth', auth);
}

/** GET /auth/me's answer: the user, the workspace, the role and tier, the CSRF token of a session. */
async function me(
  services: Services,
  tenantId: string,
  userId: string | null,
  authenticatedBy: 'session' | 'token',
  csrfToken: string | null,
) {
  const [workspace, user] = await Promise.all([
    services.tenants.get(tenantId),
    userId ? services.team.userById(userId) : undefined,
  ]);
  if (!workspace) throw new GatewayError('auth_error', 'The workspace no longer exists');
  const role = user ? ((await services.team.list(tenantId)).find((m) => m.userId === user.id)?.role ?? null) : null;
  return {
    user: user ? { id: user.id, email: user.email, name: user.name } : null,
    workspace: { id: workspace.id, name: workspace.name, tier: workspace.tier },
    role,
    tier: workspace.tier,
    authenticatedBy,
    csrfToken,
  };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
