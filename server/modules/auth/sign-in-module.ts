import type { Config } from '../../config.js';
import type { Database, Executor } from '../../db/client.js';
import type { PgListener } from '../../db/listener.js';
import type { Logger } from '../../lib/logger.js';
import type { AuditService } from '../audit/service.js';
import type { TeamService } from '../team/service.js';
import type { TenantService } from '../tenants/service.js';
import type { Authenticator } from '../tokens/authenticator.js';
import { MagicLinkService } from './magic-link.js';
import { createMailer, type Mailer } from './mailer.js';
import { OAuthFlowService } from './oauth-flow.js';
import { githubProvider, googleProvider, type OAuthProvider } from './oauth-providers.js';
import { authRepository } from './repository.js';
import { RequestAuthenticator } from './request-auth.js';
import { SamlService } from './saml.js';
import { SessionCache } from './session-cache.js';
import { SignInService } from './sign-in.js';

export interface SignInModule {
  /** Bearer tokens, and session cookies in multi-tenant mode: every authenticated path asks this. */
  requestAuth: RequestAuthenticator;
  /** null in single-tenant mode. */
  sessions: SessionCache | null;
  signIn: SignInService;
  magicLink: MagicLinkService;
  oauth: OAuthFlowService;
  saml: SamlService;
  mailer: Mailer;
  publicUrl: string;
  /** The session cookie is Secure when the public URL is https. */
  secureCookies: boolean;
  memberChanged(tx: Executor, tenantId: string, userId: string, removed: boolean): Promise<void>;
  start(): Promise<void>;
  close(): void;
}

export interface SignInModuleDeps {
  config: Config;
  db: Database;
  listener: PgListener;
  logger: Logger;
  audit: AuditService;
  tokens: Authenticator;
  team: () => TeamService;
  tenants: () => TenantService;
}

const SWEEP_MS = 10 * 60_000;

/** Builds sign-in from the configuration: the providers that have a client id, SMTP or the log. */
export function createSignInModule(deps: SignInModuleDeps): SignInModule {
  const { config, db, logger } = deps;
  const multi = config.GATEWAY_MODE === 'multi';
  const publicUrl = (config.GATEWAY_PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/$/, '');
  const sessions = multi ? new SessionCache(db, deps.listener) : null;
  // Lazily reached: sign-in and the team service need each other only at call time.
  const signIn = new SignInService({
    db,
    get team() {
      return deps.team();
    },
    get tenants() {
      return deps.tenants();
    },
    audit: deps.audit,
    sessionTtlMs: config.GATEWAY_SESSION_TTL_HOURS * 3_600_000,
  });
  const mailer = createMailer({
    smtpUrl: config.GATEWAY_SMTP_URL,
    from: config.GATEWAY_SMTP_FROM,
    development: config.NODE_ENV === 'development',
    logger,
  });
  const providers = new Map<string, OAuthProvider>();
  const redirectUri = (name: string) => `${publicUrl}/auth/callback/${name}`;
  if (config.GATEWAY_GOOGLE_CLIENT_ID && config.GATEWAY_GOOGLE_CLIENT_SECRET)
    providers.set(
      'google',
      googleProvider({
        clientId: config.GATEWAY_GOOGLE_CLIENT_ID,
        clientSecret: config.GATEWAY_GOOGLE_CLIENT_SECRET,
        issuer: config.GATEWAY_GOOGLE_ISSUER,
        redirectUri: redirectUri('google'),
      }),
    );
  if (config.GATEWAY_GITHUB_CLIENT_ID && config.GATEWAY_GITHUB_CLIENT_SECRET)
    providers.set(
      'github',
      githubProvider({
        clientId: config.GATEWAY_GITHUB_CLIENT_ID,
        clientSecret: config.GATEWAY_GITHUB_CLIENT_SECRET,
        authorizeUrl: config.GATEWAY_GITHUB_AUTHORIZE_URL,
        tokenUrl: config.GATEWAY_GITHUB_TOKEN_URL,
        apiUrl: config.GATEWAY_GITHUB_API_URL,
        redirectUri: redirectUri('github'),
      }),
    );
  let sweeper: NodeJS.Timeout | undefined;
  return {
    requestAuth: new RequestAuthenticator(deps.tokens, sessions),
    sessions,
    signIn,
    magicLink: new MagicLinkService({
      db,
      mailer,
      signIn,
      logger,
      publicUrl,
      ttlMs: config.GATEWAY_MAGIC_LINK_TTL_MINUTES * 60_000,
      perHour: config.GATEWAY_MAGIC_LINK_PER_HOUR,
    }),
    oauth: new OAuthFlowService({ db, providers, signIn, publicUrl }),
    saml: new SamlService({ db, audit: deps.audit, signIn, publicUrl }),
    mailer,
    publicUrl,
    secureCookies: publicUrl.startsWith('https:'),
    async memberChanged(tx, tenantId, userId, removed) {
      if (removed) await authRepository.revokeMemberSessions(tx, tenantId, userId);
      await authRepository.announce(tx, userId);
    },
    async start() {
      if (!sessions) return;
      await sessions.start();
      sweeper = setInterval(() => {
        authRepository.sweep(db, new Date()).catch((err: unknown) => logger.warn({ err }, 'sign-in sweep failed'));
      }, SWEEP_MS);
      sweeper.unref();
    },
    close() {
      clearInterval(sweeper);
      mailer.close();
    },
  };
}
