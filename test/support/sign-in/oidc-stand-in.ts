import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface OidcAccount {
  sub: string;
  email: string;
  emailVerified?: boolean;
  name?: string;
}

/**
 * A real OpenID Connect provider (oidc-provider) on loopback, playing Google. Its login and
 * consent step signs in `nextAccount` at once (a person at the provider's login page).
 */
export async function startOidcStandIn(opts: { clientId: string; clientSecret: string; redirectUri: string }) {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, OidcAccount>();
  const state: { nextAccount?: OidcAccount } = {};
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: opts.clientId,
        client_secret: opts.clientSecret,
        redirect_uris: [opts.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['oidc-stand-in-cookie-key'] },
    async findAccount(_ctx, id) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        async claims() {
          return {
            sub: id,
            email: account.email,
            email_verified: account.emailVerified ?? true,
            name: account.name ?? account.email,
          };
        },
      };
    },
  });
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return void callback(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      const account = state.nextAccount;
      if (!account) throw new Error('no account to sign in: set nextAccount');
      accounts.set(account.sub, account);
      const grant = new provider.Grant({ accountId: account.sub, clientId: String(details.params.client_id) });
      grant.addOIDCScope('openid email profile');
      const grantId = await grant.save();
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: account.sub }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
    })().catch((err: Error) => {
      res.statusCode = 500;
      res.end(err.message);
    });
  });
  return {
    issuer,
    state,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
