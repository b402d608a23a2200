import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { createRequestListener } from '../../server/app.js';
import { loadConfig, type Config, type Tier } from '../../server/config.js';
import { connectDatabase, type DbHandle } from '../../server/db/client.js';
import { createLogger } from '../../server/lib/logger.js';
import { createServices, type Services } from '../../server/services.js';
import { createGatewayClient } from '../../sdk/index.js';
import { createTestDatabase } from './database.js';
import { routeRequest, type RestRoute, type RouteBody, type RouteParams } from './rest-routes.js';

export interface TestTenant {
  tenantId: string;
  /** Admin token secret. */
  token: string;
  tokenId: string;
}

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface HttpOptions {
  token?: string;
  body?: unknown;
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface TestEnv {
  baseUrl: string;
  config: Config;
  services: Services;
  database: DbHandle;
  databaseUrl: string;
  createTenant(tier?: Tier): Promise<TestTenant>;
  /**
   * HTTP on a REST route of the router, named as in its OpenAPI meta ('PATCH /v1/admin/tokens/{id}',
   * rest-routes.ts), `{params}` given in `params`: the body is typed as the procedure's output
   * (or, for a failed call, `error`).
   */
  http<R extends RestRoute>(route: R, opts?: HttpOptions & RouteParams<R>): Promise<HttpResult<RouteBody<R>>>;
  /** Plain HTTP against the app; JSON bodies are sent and parsed. */
  http<T = any>(method: string, path: string, opts?: HttpOptions): Promise<HttpResult<T>>;
  sdk(token: string): ReturnType<typeof createGatewayClient>;
  /** Another gateway node on this database, with the same settings plus `env`; closed with this env. */
  addNode(env?: Record<string, string>): Promise<TestNode>;
  close(): Promise<void>;
}

export interface TestEnvOptions {
  /** Environment for loadConfig (provider keys and base URLs, limits, ...). */
  env?: Record<string, string>;
}

/** One more gateway node on a test env's database (a scaled-out deployment). */
export interface TestNode {
  baseUrl: string;
  services: Services;
  close(): Promise<void>;
}

/** A gateway node: its own services, pool and HTTP server on port 0, on `config`'s database. */
async function startNode(config: Config): Promise<TestNode & { database: DbHandle }> {
  const database = connectDatabase(config.DATABASE_URL!, 10);
  const services = createServices(config, database, createLogger(config.LOG_LEVEL));
  await services.start();
  const server: Server = createServer(createRequestListener(services));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    services,
    database,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await services.close();
      await database.close();
    },
  };
}

/** A real database and the real app on port 0, for one test file. */
export async function startTestEnv(opts: TestEnvOptions = {}): Promise<TestEnv> {
  const db = await createTestDatabase();
  // No provider unless a test configures one; the simulator and a local server stay off by default.
  const env = {
    GATEWAY_MODE: 'multi',
    LOG_LEVEL: 'silent',
    DATABASE_URL: db.url,
    GATEWAY_SIMULATOR: 'off',
    GATEWAY_JOBS: 'off',
    OLLAMA_BASE_URL: 'http://127.0.0.1:9/v1',
    ...opts.env,
  };
  const config = loadConfig(env);
  const node = await startNode(config);
  const { baseUrl, services, database } = node;
  const extraNodes: TestNode[] = [];

  return {
    baseUrl,
    config,
    services,
    database,
    databaseUrl: db.url,
    async createTenant(tier = 'intelligence') {
      const t = await services.tenants.create(`tenant-${Math.random().toString(36).slice(2, 8)}`, tier);
      return { tenantId: t.tenantId, token: t.adminToken, tokenId: t.adminTokenId };
    },
    http: httpClient(baseUrl),
    sdk: (token) => createGatewayClient({ baseUrl, token }),
    async addNode(overrides = {}) {
      const extra = await startNode(loadConfig({ ...env, ...overrides }));
      extraNodes.push(extra);
      return extra;
    },
    async close() {
      for (const extra of extraNodes) await extra.close();
      await node.close();
      await db.drop();
    },
  };
}

/** The `http` of a test env, against any base URL. */
export function httpClient(baseUrl: string): TestEnv['http'] {
  return async (
    first: string,
    second?: string | (HttpOptions & { params?: Record<string, string>; query?: Record<string, any> }),
    third: HttpOptions = {},
  ) => {
    const { method, path } =
      typeof second === 'string' ? { method: first, path: second } : routeRequest(first as RestRoute, second ?? {});
    const o = (typeof second === 'string' ? third : second) ?? {};
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let body: string | Uint8Array | undefined = o.rawBody;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, headers: res.headers, body: parsed as any };
  };
}
