// HTTP front: routes paths to a wire format, reads and records the body, applies auth, faults and
// latency, then hands over to the format module. Also serves the /_simulator admin endpoints.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { SimState } from './config.js';
import type { Exchange, FormatApi, RouteKind } from './exchange.js';
import { isObj } from './exchange.js';
import { anthropicApi } from './anthropic.js';
import { geminiApi } from './gemini.js';
import { openaiApi } from './openai.js';
import { sendJson, sleep } from './sse.js';
import type { FaultRule, SimEndpoint, SimFormat } from './types.js';

const MAX_BODY_BYTES = 10 * 1024 * 1024;

const APIS: Record<SimFormat, FormatApi> = { openai: openaiApi, anthropic: anthropicApi, gemini: geminiApi };

interface Route {
  format: SimFormat;
  kind: RouteKind;
  pathModel?: string;
}

export function createSimulatorServer(state: SimState): Server {
  const server = createServer((req, res) => {
    handle(state, req, res).catch(() => {
      // A handler bug must not take the simulator down mid-benchmark; answer 500 if still possible.
      if (!res.headersSent && !res.destroyed)
        sendJson(res, 500, JSON.stringify({ error: { message: 'simulator internal error' } }));
      else res.destroy();
    });
  });
  // Longer than typical client pools' idle timeouts, so the client, not us, closes idle sockets
  // (otherwise a request can race a server-side close and fail spuriously).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  // Hanging requests are a feature here; only the client decides when to give up.
  server.requestTimeout = 0;
  return server;
}

async function handle(state: SimState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const raw = req.url ?? '/';
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const query = q < 0 ? '' : raw.slice(q + 1);
  const method = req.method ?? 'GET';

  if (path.startsWith('/_simulator/')) return admin(state, req, res, path.slice(12), method);
  const route = matchRoute(method, path);
  if (!route) {
    return sendJson(
      res,
      404,
      JSON.stringify({
        error: {
          message: `Unknown simulator route: ${method} ${path}`,
          type: 'invalid_request_error',
          param: null,
          code: 'unknown_url',
        },
      }),
    );
  }
  const api = APIS[route.format];

  let body: Record<string, unknown> = {};
  if (method === 'POST') {
    const buf = await readBody(req);
    if (buf === 'too-large') return sendJson(res, 413, api.errorBody(413), { connection: 'close' });
    if (buf === null) return; // client went away
    let parsed: unknown;
    try {
      parsed = JSON.parse(buf.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    if (!isObj(parsed))
      return sendJson(res, 400, api.errorBody(400, 'We could not parse the JSON body of your request.'));
    body = parsed;
  }

  const endpoint: SimEndpoint =
    route.kind === 'models' || route.kind === 'model'
      ? 'models'
      : route.kind === 'embed' || route.kind === 'batchEmbed'
        ? 'embeddings'
        : route.kind === 'stream' || body.stream === true
          ? 'stream'
          : 'chat';
  const model = route.pathModel ?? (typeof body.model === 'string' ? body.model : undefined);
  state.record({
    format: route.format,
    endpoint,
    method,
    path,
    headers: req.headers,
    body: method === 'POST' ? body : undefined,
    at: Date.now(),
  });

  if (!api.authorized(req, query)) return sendJson(res, 401, api.errorBody(401));

  const fault = state.faults.empty ? undefined : state.faults.match(route.format, endpoint, model);
  if (fault?.hang) return; // never answer; the socket closes when the client aborts or we shut down
  const delay = state.latencyMs + (fault?.latencyMs ?? 0);
  if (delay > 0 && !(await sleep(delay, res))) return;
  if (fault?.resetConnection) {
    // An RST rather than a FIN: what a dropped connection looks like to the client.
    const sock = req.socket;
    if (typeof sock.resetAndDestroy === 'function') sock.resetAndDestroy();
    else sock.destroy();
    return;
  }
  if (fault?.status !== undefined) {
    const headers: Record<string, string> = {};
    if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
    return sendJson(res, fault.status, api.errorBody(fault.status), headers);
  }
  if (fault?.malformedAnswer !== undefined) return sendMalformed(res, endpoint, fault.malformedAnswer);

  const x: Exchange = { req, res, kind: route.kind, endpoint, query, body, state };
  if (route.pathModel !== undefined) x.pathModel = route.pathModel;
  if (fault?.cutStreamAfterChunks !== undefined && endpoint === 'stream') x.cutAfter = fault.cutStreamAfterChunks;
  if (fault?.omitUsage) x.omitUsage = true;
  if (fault?.usage) x.usage = fault.usage;
  if (fault?.firstContentDelayMs !== undefined && endpoint === 'stream')
    x.firstContentDelayMs = fault.firstContentDelayMs;
  await api.serve(x);
}

/** Body text that no wire format's parser accepts as an answer. */
const NOT_JSON = '<html><body>502 upstream proxy error</body></html>';
const MALFORMED_JSON: Record<Exclude<Malformed, 'not-json'>, string> = {
  'no-choices': JSON.stringify({ id: 'sim-malformed', object: 'chat.completion', created: 0 }),
  'empty-choices': JSON.stringify({ id: 'sim-malformed', object: 'chat.completion', created: 0, choices: [] }),
  'no-message': JSON.stringify({ id: 'sim-malformed', object: 'chat.completion', created: 0, choices: [{ index: 0 }] }),
};

type Malformed = NonNullable<FaultRule['malformedAnswer']>;

/** A 200 whose body is not a usable answer (FaultRule.malformedAnswer). */
function sendMalformed(res: ServerResponse, endpoint: SimEndpoint, kind: Malformed): void {
  const text: string = kind === 'not-json' ? NOT_JSON : MALFORMED_JSON[kind];
  if (endpoint !== 'stream') return sendJson(res, 200, text);
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.end(kind === 'not-json' ? `data: ${text}\n\n` : `data: ${text}\n\ndata: [DONE]\n\n`);
}

function matchRoute(method: string, path: string): Route | null {
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  if (path.startsWith('/openai/v1/')) return openaiRoute(method, path.slice(10));
  if (path.startsWith('/v1/')) return openaiRoute(method, path.slice(3));
  if (path.startsWith('/anthropic/v1/')) return anthropicRoute(method, path.slice(13));
  if (path.startsWith('/gemini/v1beta/')) return geminiRoute(method, path.slice(14));
  return null;
}

function openaiRoute(method: string, rest: string): Route | null {
  if (method === 'POST' && rest === '/chat/completions') return { format: 'openai', kind: 'chat' };
  if (method === 'POST' && rest === '/embeddings') return { format: 'openai', kind: 'embed' };
  if (method === 'GET' && rest === '/models') return { format: 'openai', kind: 'models' };
  if (method === 'GET' && rest.startsWith('/models/'))
    return { format: 'openai', kind: 'model', pathModel: decode(rest.slice(8)) };
  return null;
}

function anthropicRoute(method: string, rest: string): Route | null {
  if (method === 'POST' && rest === '/messages') return { format: 'anthropic', kind: 'chat' };
  if (method === 'GET' && rest === '/models') return { format: 'anthropic', kind: 'models' };
  if (method === 'GET' && rest.startsWith('/models/'))
    return { format: 'anthropic', kind: 'model', pathModel: decode(rest.slice(8)) };
  return null;
}

const GEMINI_ACTIONS: Record<string, RouteKind> = {
  generateContent: 'chat',
  streamGenerateContent: 'stream',
  embedContent: 'embed',
  batchEmbedContents: 'batchEmbed',
};

function geminiRoute(method: string, rest: string): Route | null {
  if (method === 'GET' && rest === '/models') return { format: 'gemini', kind: 'models' };
  if (!rest.startsWith('/models/')) return null;
  // Clients may percent-encode the ':' before the action.
  const tail = decode(rest.slice(8));
  const colon = tail.lastIndexOf(':');
  if (colon < 0) return method === 'GET' ? { format: 'gemini', kind: 'model', pathModel: tail } : null;
  const kind = GEMINI_ACTIONS[tail.slice(colon + 1)];
  if (method !== 'POST' || !kind) return null;
  return { format: 'gemini', kind, pathModel: tail.slice(0, colon) };
}

function decode(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The body, 'too-large' past the cap, or null if the client disconnected first. */
function readBody(req: IncomingMessage): Promise<Buffer | 'too-large' | null> {
  const declared = Number(req.headers['content-length']);
  if (declared > MAX_BODY_BYTES) {
    req.resume();
    return Promise.resolve('too-large');
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        done = true;
        chunks.length = 0;
        resolve('too-large');
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!done) {
        done = true;
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      }
    });
    req.on('error', () => {
      if (!done) {
        done = true;
        resolve(null);
      }
    });
    req.on('close', () => {
      if (!done) {
        done = true;
        resolve(null);
      }
    });
  });
}

async function admin(
  state: SimState,
  req: IncomingMessage,
  res: ServerResponse,
  action: string,
  method: string,
): Promise<void> {
  const ok = (v: unknown): void => sendJson(res, 200, JSON.stringify(v));
  const fail = (status: number, message: string): void => sendJson(res, status, JSON.stringify({ error: { message } }));
  if (method === 'GET' && action === 'health') return ok({ ok: true });
  if (method === 'GET' && action === 'config') return ok(state.snapshot());
  if (method === 'GET' && action === 'requests') return ok({ requests: state.requests });
  if (method === 'POST' && action === 'reset') {
    state.reset();
    return ok(state.snapshot());
  }
  if (method === 'POST' && action === 'config') {
    const buf = await readBody(req);
    if (buf === null) return;
    if (buf === 'too-large') return fail(413, 'body too large');
    let patch: unknown;
    try {
      patch = buf.length ? JSON.parse(buf.toString('utf8')) : {};
    } catch {
      return fail(400, 'invalid JSON');
    }
    if (!isObj(patch)) return fail(400, 'expected a JSON object');
    try {
      state.configure(patch);
    } catch (e) {
      return fail(400, (e as Error).message);
    }
    return ok(state.snapshot());
  }
  return fail(404, `Unknown simulator admin route: ${method} /_simulator/${action}`);
}
