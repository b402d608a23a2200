import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lines, runCli } from '../../support/cli.js';
import { startTestEnv, type TestEnv, type TestTenant } from '../../support/harness.js';
import { StandIns } from '../../support/stand-in.js';

// gatewayctl when what answers is not a working gateway: a process that accepts connections and
// never answers, a proxy's error page, a web page at the configured URL. Each must end in one
// line on stderr and exit code 1, quickly, never a hang or a JSON parse error. The stand-ins are
// plain HTTP servers playing what sits between the CLI and a gateway.

let env: TestEnv;
let tenant: TestTenant;
const standIns = new StandIns();
const standIn = standIns.start.bind(standIns);

let hung: string;
let proxy: string;
let page: string;

beforeAll(async () => {
  env = await startTestEnv();
  tenant = await env.createTenant('team');
  hung = await standIn(() => undefined);
  proxy = await standIn((_req, res) => {
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
  });
  page = await standIn((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>welcome</html>');
  });
});
afterAll(async () => {
  await standIns.closeAll();
  await env?.close();
});

describe('gatewayctl against something that is not a working gateway', () => {
  it('gives up on a gateway that never answers after --timeout (or GATEWAY_TIMEOUT), for calls and for tail', async () => {
    const started = Date.now();
    const flag = runCli(['health', '--timeout', '1'], { url: hung });
    // runCli hands the child a copy of this environment at once: set GATEWAY_TIMEOUT just for it.
    process.env.GATEWAY_TIMEOUT = '1';
    const tail = runCli(['tail'], { url: hung, token: tenant.token });
    delete process.env.GATEWAY_TIMEOUT;
    await Promise.all([flag, tail]);
    expect(Date.now() - started).toBeLessThan(15_000);
    for (const r of await Promise.all([flag, tail])) {
      expect(r).toMatchObject({ code: 1, stdout: '' });
      expect(lines(r.stderr)).toEqual([
        `error: no answer from the gateway at ${hung} within 1 s (raise it with --timeout or GATEWAY_TIMEOUT)`,
      ]);
    }
  });

  it("names the HTTP status and what answered for a proxy's error page or a web page", async () => {
    const [bad, web, tailWeb] = await Promise.all([
      runCli(['tokens', 'list'], { url: proxy, token: tenant.token }),
      runCli(['--json', 'health'], { url: page }),
      runCli(['tail', '--count', '1'], { url: page, token: tenant.token }),
    ]);
    expect(bad).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'error: http_error: the server answered 502: <html><body><h1>502 Bad Gateway</h1></body></html>\n',
    });
    expect(web).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'error: http_error: the server answered 200 with text/html, not a gateway answer: <html>welcome</html>\n',
    });
    expect(tailWeb).toMatchObject({ code: 1, stdout: '' });
    expect(lines(tailWeb.stderr)).toEqual([
      'error: http_error: the server answered 200 with text/html, not a gateway answer: <html>welcome</html>',
    ]);
  });

  it("says to drop /v1 from the URL on the gateway's 404 for it, for calls and for tail", async () => {
    const [call, tail, otherPath] = await Promise.all([
      runCli(['tokens', 'list'], { url: `${env.baseUrl}/v1`, token: tenant.token }),
      runCli(['tail'], { url: `${env.baseUrl}/v1`, token: tenant.token }),
      runCli(['tokens', 'list'], { url: `${env.baseUrl}/api`, token: tenant.token }),
    ]);
    const dropV1 = `The gateway URL (--url or GATEWAY_URL) must be its base URL, without /v1: use ${env.baseUrl}`;
    expect(call).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: not_found_error: No route for GET /v1/trpc/tokens.list. ${dropV1}\n`,
    });
    expect(tail).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: not_found_error: No route for GET /v1/v1/analytics/live. ${dropV1}\n`,
    });
    // Another path: no guess at the right URL, but the same reminder.
    expect(otherPath).toMatchObject({ code: 1, stdout: '' });
    expect(lines(otherPath.stderr)).toEqual([
      `error: not_found_error: No route for GET /api/trpc/tokens.list. Check that the gateway URL (--url or GATEWAY_URL) is its base URL, such as ${env.baseUrl}, without /v1 or an API path.`,
    ]);
  });
});
