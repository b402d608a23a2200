import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_BIN, childEnv, lines, runCliWith, type CliResult } from '../../support/cli.js';
import { StandIns } from '../../support/stand-in.js';

// gatewayctl's usage errors, option bounds and `tail`'s reconnects against stand-in servers: one
// that records what reaches it (a usage error must send nothing), and a scripted live tap whose
// connections play a gateway restart behind a reverse proxy. In-process, save the tests that
// watch or signal a running gatewayctl: those spawn the real binary.

/** gatewayctl in-process with exactly these gateway variables (empty values kept). */
const run = (args: string[], vars: Record<string, string> = {}): Promise<CliResult> => runCliWith(args, vars);

/** A running gatewayctl whose stderr can be watched and which can be sent signals. */
function start(args: string[], vars: Record<string, string> = {}) {
  const child = spawn(process.execPath, [CLI_BIN, ...args], { env: childEnv(vars) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<CliResult & { at: number }>((resolve) => {
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, at: Date.now() }));
  });
  return { child, exited, stderr: () => stderr };
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const standIns = new StandIns();
afterAll(() => standIns.closeAll());

/** A server that answers every request with a web page (not a gateway answer) and records its path. */
async function recorder() {
  const paths: string[] = [];
  const url = await standIns.start((req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>not a gateway</html>');
  });
  return { url, paths };
}

const NOT_A_GATEWAY =
  'error: http_error: the server answered 200 with text/html, not a gateway answer: <html>not a gateway</html>';

/** One completed request as the live tap sends it. */
function liveEvent(id: string) {
  return {
    id,
    createdAt: '2025-01-31T14:05:00.000Z',
    provider: 'openai',
    model: 'gpt-4o-mini',
    taskType: 'qa',
    complexity: 'simple',
    routedBy: 'rules',
    cached: false,
    status: 'success',
    latencyMs: 12,
    inputTokens: 3,
    outputTokens: 4,
    cost: 0,
    preview: 'hello',
  };
}

type Reply = (res: ServerResponse, req: IncomingMessage) => void;

/** An open stream that carries one event and then ends, as the gateway's does when it shuts down. */
const streamOf =
  (id: string): Reply =>
  (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    res.write(': connected\n\n');
    res.end(`data: ${JSON.stringify(liveEvent(id))}\n\n`);
  };

const proxyPage =
  (status: number): Reply =>
  (res) => {
    res.writeHead(status, { 'content-type': 'text/html' });
    res.end(`<html><body><h1>${status} from the proxy</h1></body></html>`);
  };

const gatewayError =
  (status: number, type: string, message: string): Reply =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { type, message } }));
  };

/** The connection cut without an answer: the gateway gone. */
const reset: Reply = (_res, req) => req.socket.destroy();

/** A live tap answering its n-th connection with replies[n] (the last one from then on). */
async function liveTap(replies: Reply[]) {
  let n = 0;
  const url = await standIns.start((req, res) => {
    if (!req.url?.startsWith('/v1/analytics/live')) return proxyPage(404)(res, req);
    replies[Math.min(n++, replies.length - 1)]!(res, req);
  });
  return { url, connections: () => n };
}

describe('gatewayctl usage errors', () => {
  it('prints a usage error thrown by a command as one line, and one commander printed only once (exit 2, nothing sent)', async () => {
    const { url, paths } = await recorder();
    const [noSlash, trailingSlash, badRange] = await Promise.all([
      run(['feedback', 'trend', '--model', 'gpt-4o-mini'], { GATEWAY_URL: url, GATEWAY_TOKEN: 'gw_x' }),
      run(['feedback', 'trend', '--model', 'openai/'], { GATEWAY_URL: url, GATEWAY_TOKEN: 'gw_x' }),
      run(['feedback', 'trend', '--range', '1y'], { GATEWAY_URL: url, GATEWAY_TOKEN: 'gw_x' }),
    ]);
    for (const r of [noSlash, trailingSlash]) {
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(lines(r.stderr)).toEqual([
        'error: --model must be provider/model, e.g. openai/gpt-4o-mini (see gatewayctl models)',
      ]);
    }
    expect(badRange).toMatchObject({ code: 2, stdout: '' });
    expect(lines(badRange.stderr)).toEqual([
      expect.stringMatching(
        /^error: option '--range <range>' argument '1y' is invalid\. Allowed choices are 24h, 7d, 30d\.$/,
      ),
    ]);
    expect(paths).toEqual([]);
  });

  it('bounds --timeout and GATEWAY_TIMEOUT at 24 h with a usage error, and takes 24 h', async () => {
    const { url, paths } = await recorder();
    const [flag, variable, day] = await Promise.all([
      run(['--timeout', '2200000', 'health'], { GATEWAY_URL: url }),
      run(['health'], { GATEWAY_URL: url, GATEWAY_TIMEOUT: '2200000' }),
      run(['health', '--timeout', '86400'], { GATEWAY_URL: url }),
    ]);
    for (const r of [flag, variable]) {
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(lines(r.stderr)).toEqual([
        expect.stringMatching(
          /^error: option '--timeout <seconds>' .*'2200000'.* is invalid\. Expected at most 86400 seconds \(24 h\)\.$/,
        ),
      ]);
    }
    expect(variable.stderr).toContain("from env 'GATEWAY_TIMEOUT'");
    expect(day).toMatchObject({ code: 1, stdout: '', stderr: `${NOT_A_GATEWAY}\n` });
    expect(paths).toHaveLength(1);
  });

  it("refuses --limit above the gateway's 500 for audit list and feedback list, as for analytics requests", async () => {
    const { url, paths } = await recorder();
    const vars = { GATEWAY_URL: url, GATEWAY_TOKEN: 'gw_x' };
    const refused = await Promise.all([
      run(['audit', 'list', '--limit', '501'], vars),
      run(['feedback', 'list', '--limit', '501'], vars),
      run(['analytics', 'requests', '--limit', '501'], vars),
    ]);
    for (const r of refused) {
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(lines(r.stderr)).toEqual(["error: option '--limit <n>' argument '501' is invalid. Expected at most 500."]);
    }
    expect(paths).toEqual([]);
    const [audit, feedback] = await Promise.all([
      run(['audit', 'list', '--limit', '500'], vars),
      run(['feedback', 'list', '--limit', '500'], vars),
    ]);
    for (const r of [audit, feedback]) expect(r).toMatchObject({ code: 1, stderr: `${NOT_A_GATEWAY}\n` });
    expect(paths.map((p) => decodeURIComponent(p)).sort()).toEqual([
      expect.stringMatching(/^\/trpc\/audit\.list\?.*"limit":500/),
      expect.stringMatching(/^\/trpc\/feedback\.list\?.*"limit":500/),
    ]);
  });

  it('counts an empty GATEWAY_URL, GATEWAY_TIMEOUT or GATEWAY_TOKEN as unset', async () => {
    const { url, paths } = await recorder();
    const [emptyUrl, emptyTimeout, emptyToken] = await Promise.all([
      // Usage errors come before any request: the command's own shows the empty URL was no error.
      run(['feedback', 'trend', '--model', 'nope'], { GATEWAY_URL: '', GATEWAY_TOKEN: 'gw_x' }),
      run(['health'], { GATEWAY_URL: url, GATEWAY_TIMEOUT: ' ' }),
      run(['tokens', 'list'], { GATEWAY_URL: url, GATEWAY_TOKEN: '' }),
    ]);
    expect(emptyUrl).toMatchObject({
      code: 2,
      stderr: 'error: --model must be provider/model, e.g. openai/gpt-4o-mini (see gatewayctl models)\n',
    });
    expect(emptyTimeout).toMatchObject({ code: 1, stderr: `${NOT_A_GATEWAY}\n` });
    expect(emptyToken).toMatchObject({
      code: 1,
      stderr: 'error: no API token: pass --token <token> or set GATEWAY_TOKEN\n',
    });
    expect(paths).toHaveLength(1);
  });
});

describe('gatewayctl --url', () => {
  it('refuses credentials in the URL without ever echoing them', async () => {
    const { url, paths } = await recorder();
    const withCredentials = url.replace('http://', 'http://admin:s3cret-pw@');
    const results = await Promise.all([
      run(['health', '--url', withCredentials]),
      run(['health'], { GATEWAY_URL: withCredentials }),
      // Not a valid http(s) URL either: commander would quote it whole.
      run(['health', '--url', 'ftp://admin:s3cret-pw@127.0.0.1:1']),
      run(['health', '--url', 'http://admin:s3cret-pw@']),
    ]);
    for (const r of results) {
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(lines(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(/^error: the gateway URL \(--url or GATEWAY_URL\) /);
      expect(r.stderr).not.toContain('s3cret-pw');
      expect(r.stderr).not.toContain('admin');
    }
    expect(paths).toEqual([]);
  });

  it('refuses a query or fragment, and calls the API path meant for a URL with spaces or a trailing slash', async () => {
    const { url, paths } = await recorder();
    const [query, fragment, spaced, slashed] = await Promise.all([
      run(['health', '--url', `${url}?tenant=1`]),
      run(['health'], { GATEWAY_URL: `${url}#top` }),
      run(['health'], { GATEWAY_URL: ` ${url}/ ` }),
      run(['health', '--url', `${url}//`]),
    ]);
    for (const r of [query, fragment]) {
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(lines(r.stderr)).toEqual([
        expect.stringMatching(
          /is invalid\. Expected a base URL without \?query or #fragment, such as http:\/\/127\.0\.0\.1:8080\.$/,
        ),
      ]);
    }
    for (const r of [spaced, slashed]) expect(r).toMatchObject({ code: 1, stdout: '', stderr: `${NOT_A_GATEWAY}\n` });
    expect(paths).toHaveLength(2);
    for (const p of paths) expect(p).toMatch(/^\/trpc\/system\.health\?/);
  });
});

describe('gatewayctl tail reconnecting', () => {
  it("waits out a proxy's 502, 503 or 504 and the gateway's 503 service_unavailable once a stream was open", async () => {
    const cases = [
      { reply: proxyPage(502), waiting: 'gateway unavailable (502 http_error); reconnecting in 1 s' },
      { reply: proxyPage(503), waiting: 'gateway unavailable (503 http_error); reconnecting in 1 s' },
      { reply: proxyPage(504), waiting: 'gateway unavailable (504 http_error); reconnecting in 1 s' },
      {
        reply: gatewayError(503, 'service_unavailable', 'The gateway is shutting down'),
        waiting: 'gateway unavailable (503 service_unavailable); reconnecting in 1 s',
      },
    ];
    const results = await Promise.all(
      cases.map(async ({ reply }) => {
        const tap = await liveTap([streamOf('req_before'), reply, streamOf('req_after')]);
        const r = await run(['tail', '--count', '2'], { GATEWAY_URL: tap.url, GATEWAY_TOKEN: 'gw_x' });
        return { ...r, connections: tap.connections() };
      }),
    );
    results.forEach((r, i) => {
      expect(r).toMatchObject({ code: 0, connections: 3 });
      expect(lines(r.stdout)).toEqual([expect.stringContaining('req_before'), expect.stringContaining('req_after')]);
      expect(lines(r.stderr)).toEqual(['stream ended; reconnecting in 0.5 s', cases[i]!.waiting]);
    });
  });

  it('stays final on a refused token, a refused permission or another 4xx, and on a 502 before any stream was open', async () => {
    const cases = [
      {
        replies: [streamOf('req_1'), gatewayError(401, 'auth_error', 'Invalid or disabled API token')],
        error: 'error: auth_error: Invalid or disabled API token',
      },
      {
        replies: [streamOf('req_1'), gatewayError(403, 'permission_error', 'Not allowed')],
        error: 'error: permission_error: Not allowed',
      },
      {
        replies: [streamOf('req_1'), proxyPage(404)],
        error: 'error: http_error: the server answered 404: <html><body><h1>404 from the proxy</h1></body></html>',
      },
      {
        replies: [proxyPage(502)],
        error: 'error: http_error: the server answered 502: <html><body><h1>502 from the proxy</h1></body></html>',
      },
    ];
    const results = await Promise.all(
      cases.map(async ({ replies }) => {
        const tap = await liveTap(replies);
        const r = await run(['tail'], { GATEWAY_URL: tap.url, GATEWAY_TOKEN: 'gw_x' });
        return { ...r, connections: tap.connections() };
      }),
    );
    results.forEach((r, i) => {
      const { replies, error } = cases[i]!;
      const opened = replies.length > 1;
      expect(r).toMatchObject({ code: 1, connections: opened ? 2 : 1 });
      expect(lines(r.stderr)).toEqual([...(opened ? ['stream ended; reconnecting in 0.5 s'] : []), error]);
    });
  });

  it('says the gateway cannot be reached, not that a stream ended, while its port refuses connections', async () => {
    // A live tap that sends one stream and goes away with it: from then on its port refuses
    // connections, as a stopped gateway's does.
    const gateway = createServer((req, res) => {
      gateway.close();
      res.setHeader('connection', 'close');
      streamOf('req_1')(res, req);
    });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
    const tail = start(['tail'], { GATEWAY_URL: url, GATEWAY_TOKEN: 'gw_x' });
    try {
      await until(() => tail.stderr().includes('reconnecting in 2 s'), 'the third wait');
      tail.child.kill('SIGINT');
      const r = await tail.exited;
      expect(r).toMatchObject({ code: 0 });
      expect(lines(r.stdout)).toEqual([expect.stringContaining('req_1')]);
      const [ended, ...refused] = lines(r.stderr);
      const at = url.replaceAll('.', '\\.');
      expect(ended).toBe('stream ended; reconnecting in 0.5 s');
      expect(refused.slice(0, 2)).toEqual([
        expect.stringMatching(new RegExp(`^cannot reach gateway at ${at}: .*ECONNREFUSED.*; reconnecting in 1 s$`)),
        expect.stringMatching(new RegExp(`^cannot reach gateway at ${at}: .*ECONNREFUSED.*; reconnecting in 2 s$`)),
      ]);
    } finally {
      tail.child.kill('SIGKILL');
    }
  });

  it('stops at once on Ctrl-C while waiting to reconnect', async () => {
    const tap = await liveTap([streamOf('req_1'), reset]);
    const tail = start(['tail'], { GATEWAY_URL: tap.url, GATEWAY_TOKEN: 'gw_x' });
    try {
      // Waits of 0.5, 1, 2 and 4 s while the gateway stays gone, then one of 8 s.
      await until(() => tail.stderr().includes('reconnecting in 8 s'), 'the 8 s wait');
      const connections = tap.connections();
      const sent = Date.now();
      tail.child.kill('SIGINT');
      const r = await tail.exited;
      // Well before the wait would have ended by itself.
      expect(r.at - sent).toBeLessThan(4_000);
      expect(r).toMatchObject({ code: 0 });
      expect(lines(r.stdout)).toEqual([expect.stringContaining('req_1')]);
      expect(tap.connections()).toBe(connections);
    } finally {
      tail.child.kill('SIGKILL');
    }
  }, 40_000);
});
