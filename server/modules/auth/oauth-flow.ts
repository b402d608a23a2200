import { randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import type { Database } from '../../db/client.js';
import { GatewayError } from '../../lib/errors.js';
import type { OAuthProvider } from './oauth-providers.js';
import { authRepository } from './repository.js';
import { safeReturnPath } from './return-path.js';
import type { NewSession, SignInService } from './sign-in.js';

const FLOW_TTL_MS = 10 * 60_000;

export interface OAuthFlowDeps {
  db: Database;
  providers: Map<string, OAuthProvider>;
  signIn: SignInService;
  publicUrl: string;
}

// GET /auth/login/{provider} and GET /auth/callback/{provider}. The start stores the flow (PKCE
// verifier, nonce, where to return, the invite) under a random state and the browser gets that
// state in a cookie too: the callback needs both, so a callback URL made for someone else's
// browser (login CSRF) or replayed fails, and each flow is used once.
export class OAuthFlowService {
  constructor(private readonly deps: OAuthFlowDeps) {}

  configured(): string[] {
    return [...this.deps.providers.keys()];
  }

  async start(
    providerName: string,
    returnTo: string | undefined,
    inviteToken: string | undefined,
  ): Promise<{ url: URL; state: string }> {
    const provider = this.provider(providerName);
    const path = safeReturnPath(returnTo, this.deps.publicUrl);
    const flow = {
      state: randomBytes(24).toString('base64url'),
      codeVerifier: oidc.randomPKCECodeVerifier(),
      nonce: oidc.randomNonce(),
    };
    const url = await provider.authorizationUrl(flow);
    await authRepository.insertFlow(this.deps.db, {
      ...flow,
      provider: provider.name,
      returnTo: path,
      inviteToken: inviteToken || null,
      expiresAt: new Date(Date.now() + FLOW_TTL_MS),
    });
    return { url, state: flow.state };
  }

  async callback(
    providerName: string,
    search: string,
    browserState: string | undefined,
  ): Promise<{ session: NewSession; returnTo: string | null }> {
    const provider = this.provider(providerName);
    const callbackUrl = new URL(`${this.deps.publicUrl}/auth/callback/${provider.name}${search}`);
    const state = callbackUrl.searchParams.get('state');
    if (!state || state !== browserState)
      throw new GatewayError(
        'auth_error',
        'The sign-in was not started in this browser, or took too long: start again',
      );
    const flow = await authRepository.takeFlow(this.deps.db, state, new Date());
    if (!flow || flow.provider !== provider.name || !flow.codeVerifier || !flow.nonce)
      throw new GatewayError('auth_error', 'The sign-in is unknown, used or expired: start again');
    const identity = await provider.finish(callbackUrl, {
      state: flow.state,
      codeVerifier: flow.codeVerifier,
      nonce: flow.nonce,
    });
    const session = await this.deps.signIn.complete(identity, { inviteToken: flow.inviteToken });
    return { session, returnTo: flow.returnTo };
  }

  private provider(name: string): OAuthProvider {
    const provider = this.deps.providers.get(name);
    if (!provider)
      throw new GatewayError('not_found_error', `Sign-in provider '${name}' is not configured on this gateway`);
    return provider;
  }
}
