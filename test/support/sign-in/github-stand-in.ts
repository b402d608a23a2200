import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GithubAccount {
  id: number;
  login: string;
  name: string | null;
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
}

/**
 * A GitHub-style OAuth 2 server on loopback: the authorize redirect, the token endpoint (client
 * authentication and PKCE S256 checked, each code usable once) and the /user and /user/emails API.
 */
export async function startGithubStandIn(opts: { clientId: string; clientSecret: string }) {
  const codes = new Map<string, { account: GithubAccount; challenge: string; redirectUri: string }>();
  const tokens = new Map<string, GithubAccount>();
  const state: { nextAccount?: GithubAccount; tokenRequests: number } = { tokenRequests: 0 };
  const server: Server = createServer((req, res) => {
    void handle(req).then(
      ({ status, body, location }) => {
        if (location) res.setHeader('location', location);
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(body === undefined ? '' : JSON.stringify(body));
      },
      (err: Error) => {
        res.writeHead(500);
        res.end(err.message);
      },
    );
  });

  const readBody = async (req: IncomingMessage): Promise<string> => {
    let text = '';
    for await (const chunk of req) text += chunk;
    return text;
  };

  async function handle(req: IncomingMessage): Promise<{ status: number; body?: unknown; location?: string }> {
    const url = new URL(req.url!, 'http://stand-in');
    if (url.pathname === '/login/oauth/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== opts.clientId) return { status: 400, body: { error: 'bad client' } };
      if (q.get('code_challenge_method') !== 'S256') return { status: 400, body: { error: 'PKCE required' } };
      const account = state.nextAccount;
      if (!account) throw new Error('no account to sign in: set nextAccount');
      const code = randomBytes(16).toString('hex');
      codes.set(code, { account, challenge: q.get('code_challenge')!, redirectUri: q.get('redirect_uri')! });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state')!);
      return { status: 302, location: back.href };
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      state.tokenRequests++;
      const form = new URLSearchParams(await readBody(req));
      const basic = Buffer.from(`${opts.clientId}:${opts.clientSecret}`).toString('base64');
      if (req.headers.authorization !== `Basic ${basic}`)
        return { status: 401, body: { error: 'bad client credentials' } };
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (!grant) return { status: 400, body: { error: 'bad_verification_code' } };
      const challenge = createHash('sha256')
        .update(form.get('code_verifier') ?? '')
        .digest('base64url');
      if (challenge !== grant.challenge)
        return { status: 400, body: { error: 'invalid_grant', error_description: 'PKCE' } };
      if (form.get('redirect_uri') !== grant.redirectUri)
        return { status: 400, body: { error: 'redirect_uri mismatch' } };
      const token = `gho_${randomBytes(16).toString('hex')}`;
      tokens.set(token, grant.account);
      return { status: 200, body: { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' } };
    }
    const account = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!account) return { status: 401, body: { message: 'Bad credentials' } };
    if (url.pathname === '/user')
      return { status: 200, body: { id: account.id, login: account.login, name: account.name } };
    if (url.pathname === '/user/emails') return { status: 200, body: account.emails };
    return { status: 404, body: { message: 'Not Found' } };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    state,
    env: {
      GATEWAY_GITHUB_CLIENT_ID: opts.clientId,
      GATEWAY_GITHUB_CLIENT_SECRET: opts.clientSecret,
      GATEWAY_GITHUB_AUTHORIZE_URL: `${base}/login/oauth/authorize`,
      GATEWAY_GITHUB_TOKEN_URL: `${base}/login/oauth/access_token`,
      GATEWAY_GITHUB_API_URL: base,
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
