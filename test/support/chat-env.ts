import OpenAI from 'openai';
import pg from 'pg';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../server/simulator/index.js';
import { startTestEnv, type TestEnv, type TestTenant } from './harness.js';

// A gateway in front of the simulator playing OpenAI, Anthropic and Gemini (and Groq as a second
// OpenAI-format host serving the same model ids, for same-model fallback).

export interface ChatEnv {
  env: TestEnv;
  sim: Simulator;
  tenant: TestTenant;
  openai(token?: string): OpenAI;
  /** Rows of a query against the test database. */
  query<T = any>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Polls until the query's first row's `n` equals `expected` (the log writer commits asynchronously). */
  waitForCount(sql: string, params: unknown[], expected: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startChatEnv(
  opts: {
    sim?: SimulatorOptions;
    env?: Record<string, string>;
    groq?: boolean;
    xai?: boolean;
    mistral?: boolean;
    /** OpenAI only (no Anthropic or Gemini provider): a test that needs a small, known set of models. */
    openaiOnly?: boolean;
  } = {},
): Promise<ChatEnv> {
  const sim = await startSimulator({ seed: 7, ...opts.sim });
  const env = await startTestEnv({
    env: {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: sim.baseUrls.openai,
      ...(opts.openaiOnly
        ? {}
        : {
            ANTHROPIC_API_KEY: 'sk-ant-test',
            ANTHROPIC_BASE_URL: sim.baseUrls.anthropic,
            GEMINI_API_KEY: 'gem-test',
            GEMINI_BASE_URL: sim.baseUrls.gemini,
          }),
      ...(opts.groq ? { GROQ_API_KEY: 'gsk-test', GROQ_BASE_URL: sim.baseUrls.openai } : {}),
      ...(opts.xai ? { XAI_API_KEY: 'xai-test', XAI_BASE_URL: sim.baseUrls.openai } : {}),
      ...(opts.mistral ? { MISTRAL_API_KEY: 'mistral-test', MISTRAL_BASE_URL: sim.baseUrls.openai } : {}),
      GATEWAY_LOG_FLUSH_MS: '5',
      ...opts.env,
    },
  });
  const tenant = await env.createTenant();
  const pool = new pg.Pool({ connectionString: env.databaseUrl, max: 2 });
  pool.on('error', () => undefined);
  const query = async <T>(sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows as T[];
  return {
    env,
    sim,
    tenant,
    openai: (token = tenant.token) =>
      new OpenAI({ apiKey: token, baseURL: `${env.baseUrl}/v1`, maxRetries: 0, timeout: 20_000 }),
    query,
    async waitForCount(sql, params, expected, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      let last: unknown;
      while (Date.now() < deadline) {
        const rows = await query<{ n: number | string }>(sql, params);
        last = rows[0]?.n;
        if (Number(last) === expected) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`expected ${expected} from "${sql}", last saw ${String(last)}`);
    },
    async close() {
      await pool.end();
      await env.close();
      await sim.close();
    },
  };
}
