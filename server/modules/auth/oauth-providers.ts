import { CodeChallengeMethod, OAuth2Client } from 'arctic';
import * as oidc from 'openid-client';
import { GatewayError } from '../../lib/errors.js';
import type { VerifiedIdentity } from './sign-in.js';

/** One sign-in start: the values the callback must find again. */
export interface FlowSecrets {
  state: string;
  codeVerifier: string;
  nonce: string;
}

export interface OAuthProvider {
  readonly name: 'google' | 'github';
  /** Where to send the browser. */
  authorizationUrl(flow: FlowSecrets): Promise<URL>;
  /** The identity the provider vouches for, from the callback URL; checks state, PKCE and nonce. */
  finish(callbackUrl: URL, flow: FlowSecrets): Promise<VerifiedIdentity>;
}

export interface OAuthSettings {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

const failed = (provider: string, why: string, cause?: unknown) =>
  new GatewayError('auth_error', `Sign-in with ${provider} failed: ${why}`, { cause });

/**
 * Google, as any OpenID Connect provider (the issuer is configurable): discovery, the code flow
 * with PKCE (S256), state and nonce checked by openid-client, the e-mail from the ID token or
 * userinfo, accepted only when the provider says it is verified.
 */
export function googleProvider(settings: OAuthSettings & { issuer: string }): OAuthProvider {
  let discovered: Promise<oidc.Configuration> | undefined;
  const configuration = () => {
    discovered ??= oidc
      .discovery(
        new URL(settings.issuer),
        settings.clientId,
        settings.clientSecret,
        undefined,
        // A loopback or private test issuer speaks plain HTTP; a real one never does.
        settings.issuer.startsWith('http:') ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((err: unknown) => {
        discovered = undefined;
        throw new GatewayError('service_unavailable', 'The OpenID Connect provider could not be reached', {
          cause: err,
        });
      });
    return discovered;
  };
  return {
    name: 'google',
    async authorizationUrl(flow) {
      return oidc.buildAuthorizationUrl(await configuration(), {
        redirect_uri: settings.redirectUri,
        scope: 'openid email profile',
        code_challenge: await oidc.calculatePKCECodeChallenge(flow.codeVerifier),
        code_challenge_method: 'S256',
        state: flow.state,
        nonce: flow.nonce,
      });
    },
    async finish(callbackUrl, flow) {
      const config = await configuration();
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
      try {
        tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: flow.codeVerifier,
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        });
      } catch (err) {
        throw failed('google', (err as Error).message, err);
      }
      const claims = tokens.claims()!;
      let email = typeof claims.email === 'string' ? claims.email : undefined;
      let verified = claims.email_verified === true;
      let name = typeof claims.name === 'string' ? claims.name : null;
      if (!email || !verified) {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub).catch((err: unknown) => {
          throw failed('google', 'the user info could not be read', err);
        });
        email = info.email;
        verified = info.email_verified === true;
        name ??= info.name ?? null;
      }
      if (!email || !verified) throw failed('google', 'the account has no verified e-mail address');
      return { provider: 'google', subject: claims.sub, email, name };
    },
  };
}

/**
 * GitHub (OAuth 2, not OpenID Connect): arctic's generic OAuth 2 client, because its GitHub class
 * has fixed URLs (the endpoints are configurable here, for GitHub Enterprise and tests) and no
 * PKCE. State is checked by the caller (the flow is found by it); the e-mail is the account's
 * primary verified one.
 */
export function githubProvider(
  settings: OAuthSettings & { authorizeUrl: string; tokenUrl: string; apiUrl: string },
): OAuthProvider {
  const client = new OAuth2Client(settings.clientId, settings.clientSecret, settings.redirectUri);
  const api = async <T>(path: string, accessToken: string): Promise<T> => {
    const res = await fetch(`${settings.apiUrl.replace(/\/$/, '')}${path}`, {
      headers: {
        authorization: `Bearer ${accessToken}`,
        accept: 'application/vnd.github+json',
        'user-agent': 'llm-gateway',
      },
      signal: AbortSignal.timeout(10_000),
    }).catch((err: unknown) => {
      throw failed('github', `${path} could not be read`, err);
    });
    if (!res.ok) throw failed('github', `${path} answered ${res.status}`);
    return (await res.json()) as T;
  };
  return {
    name: 'github',
    async authorizationUrl(flow) {
      return client.createAuthorizationURLWithPKCE(
        settings.authorizeUrl,
        flow.state,
        CodeChallengeMethod.S256,
        flow.codeVerifier,
        ['read:user', 'user:email'],
      );
    },
    async finish(callbackUrl, flow) {
      const code = callbackUrl.searchParams.get('code');
      if (callbackUrl.searchParams.get('state') !== flow.state) throw failed('github', 'the state does not match');
      if (!code) throw failed('github', callbackUrl.searchParams.get('error') ?? 'no authorization code');
      let accessToken: string;
      try {
        accessToken = (
          await client.validateAuthorizationCode(settings.tokenUrl, code, flow.codeVerifier)
        ).accessToken();
      } catch (err) {
        throw failed('github', (err as Error).message, err);
      }
      const user = await api<{ id: number; login: string; name: string | null }>('/user', accessToken);
      const emails = await api<Array<{ email: string; primary: boolean; verified: boolean }>>(
        '/user/emails',
        accessToken,
      );
      const primary = emails.find((e) => e.primary && e.verified) ?? emails.find((e) => e.verified);
      if (!primary) throw failed('github', 'the account has no verified e-mail address');
      return { provider: 'github', subject: String(user.id), email: primary.email, name: user.name ?? user.login };
    },
  };
}
