import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { z } from 'zod';

// The only reader of process.env. Every variable is documented in the README's configuration table.

const bool = z.enum(['true', 'false', '1', '0', 'on', 'off']).transform((v) => v === 'true' || v === '1' || v === 'on');
/** Node fires a timer longer than this after 1 ms, so a longer duration would mean "at once". */
const MAX_TIMER_MS = 2_147_483_647;
const ms = (def: number, min = 0) => z.coerce.number().int().min(min).max(MAX_TIMER_MS).default(def);

/**
 * GATEWAY_PRICE_OVERRIDES: the deployment's negotiated prices, a JSON array of
 * `{provider?, model, input, output, cachedInput?, cacheWrite5m?, cacheWrite1h?}` (USD per million tokens).
 */
const usdPerMillion = z.number().min(0).max(100_000);
const PriceOverridesJson = z.string().transform((text, ctx) => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'not JSON: expected an array of price overrides' });
    return z.NEVER;
  }
  const parsed = z
    .array(
      z
        .object({
          provider: z.string().min(1).nullable().default(null),
          model: z.string().min(1),
          input: usdPerMillion,
          output: usdPerMillion,
          cachedInput: usdPerMillion.optional(),
          cacheWrite5m: usdPerMillion.optional(),
          cacheWrite1h: usdPerMillion.optional(),
        })
        .strict(),
    )
    .safeParse(json);
  if (!parsed.success) {
    for (const i of parsed.error.issues) ctx.addIssue({ code: 'custom', message: `${i.path.join('.')}: ${i.message}` });
    return z.NEVER;
  }
  return parsed.data;
});

export const TIERS = ['free', 'team', 'enterprise', 'intelligence'] as const;
export type Tier = (typeof TIERS)[number];

const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().url().optional(),
  /** Shared rate-limit counters for several gateway nodes; unset: each node counts in memory. */
  REDIS_URL: z.string().url().optional(),
  /** How often a node exchanges its rate-limit counts with Redis (the overshoot window). */
  GATEWAY_RATE_SYNC_MS: z.coerce.number().int().min(10).max(60_000).default(100),
  GATEWAY_DATA_DIR: z.string().default('./.gateway'),
  GATEWAY_MODE: z.enum(['single', 'multi']).default('single'),
  GATEWAY_ADMIN_TOKEN: z.string().min(16, 'GATEWAY_ADMIN_TOKEN must be at least 16 characters').optional(),
  GATEWAY_TIER: z.enum(TIERS).default('intelligence'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  GATEWAY_SHUTDOWN_TIMEOUT_MS: ms(15_000),
  /** Upper bound of the log writer's drain at shutdown, after in-flight requests are done. */
  GATEWAY_LOG_DRAIN_TIMEOUT_MS: ms(10_000),
  /** Time a client has to send its request headers; 0: no limit. */
  GATEWAY_HEADERS_TIMEOUT_MS: ms(15_000),
  /** Time a client has to send its whole request (headers and body, not the answer); 0: no limit. */
  GATEWAY_REQUEST_TIMEOUT_MS: ms(60_000),
  /** Below 1 KB no chat call fits; above 1 GiB a body could not be held as one string. */
  GATEWAY_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(10 * 1024 * 1024),
  GATEWAY_SIMULATOR: z.enum(['auto', 'on', 'off']).default('auto'),
  /** Every upstream call has a bound: it also bounds a circuit's probe and how long a stalled client is waited for. */
  GATEWAY_UPSTREAM_TIMEOUT_MS: ms(120_000, 1_000),
  GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS: ms(5_000, 100),
  GATEWAY_CACHE_ENABLED: bool.default(true),
  /** The semantic cache: answers for a reworded last user turn, everything else in the request equal. */
  GATEWAY_SEMANTIC_CACHE_ENABLED: bool.default(false),
  /** Cosine similarity of the last user turns at or above which a stored answer is served. */
  GATEWAY_SEMANTIC_CACHE_THRESHOLD: z.coerce.number().min(0).max(1).default(0.97),
  /** provider/model of the embeddings; default: the cheapest embedding model a provider serves. */
  GATEWAY_SEMANTIC_CACHE_MODEL: z.string().optional(),
  /** Dimensions asked of models that can shorten their vectors (OpenAI text-embedding-3-*); 0: the model's own. */
  GATEWAY_SEMANTIC_CACHE_DIMENSIONS: z.coerce.number().int().min(0).max(4096).default(256),
  GATEWAY_SEMANTIC_CACHE_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(31_536_000)
    .default(7 * 86_400),
  /** Entries per workspace; beyond it the least recently used go. */
  GATEWAY_SEMANTIC_CACHE_MAX_ENTRIES: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
  GATEWAY_EXPLORATION_RATE: z.coerce.number().min(0).max(1).default(0.1),
  GATEWAY_LOG_FLUSH_MS: ms(50),
  /** The queue holds every row between two commits too: fewer than this would drop rows with the database up. */
  GATEWAY_LOG_BUFFER_MAX: z.coerce.number().int().min(1_000).max(10_000_000).default(100_000),
  GATEWAY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  GATEWAY_ENV_FILE: z.string().optional(),
  GATEWAY_AB_TEST_PREEMPTS: bool.default(true),
  GATEWAY_MIN_SAMPLES: z.coerce.number().int().min(1).max(10_000).default(10),
  GATEWAY_CLASSIFIER_MODEL: z.string().optional(),
  GATEWAY_ROUTING_SEED: z.coerce.number().int().optional(),
  /** Scales how far below the best a cheaper model may score and still be chosen: lower buys quality with money. */
  GATEWAY_ROUTING_TOLERANCE: z.coerce.number().min(0).max(10).default(1),
  /** A feedback score's weight in routing halves every this many days (0: scores never fade). */
  GATEWAY_FEEDBACK_HALF_LIFE_DAYS: z.coerce.number().min(0).max(3_650).default(30),
  /** on: this node runs pg-boss workers and fires schedules; off: jobs run only on demand. */
  GATEWAY_JOBS: bool.default(true),
  /**
   * How often each job queue is polled. Every poll is a query (about 1 ms of database CPU) on
   * every node, and the jobs run every minute or less often, so the default is 10, not pg-boss's 2.
   */
  GATEWAY_JOBS_POLL_SECONDS: z.coerce.number().min(0.5).max(600).default(10),
  /** Prometheus metrics at GET /metrics. */
  GATEWAY_METRICS: bool.default(true),
  /** When set, GET /metrics asks for it as a bearer token. */
  GATEWAY_METRICS_TOKEN: z.string().min(16, 'GATEWAY_METRICS_TOKEN must be at least 16 characters').optional(),
  /** Days of request and cost logs the daily log-retention job keeps; 0 keeps everything. */
  GATEWAY_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(0),
  /** The deployment's negotiated prices (JSON array); a workspace's own overrides win over them. */
  GATEWAY_PRICE_OVERRIDES: PriceOverridesJson.optional(),
  /** Chat and embeddings calls per minute from one client address; 0: no limit. */
  GATEWAY_IP_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(10_000_000).default(0),
  /** Proxies in front of the gateway whose X-Forwarded-For entry is trusted; 0: the socket's address is the client's. */
  GATEWAY_TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  /** Chat and embeddings calls a free-tier workspace may make per UTC month; 0: no quota. */
  GATEWAY_FREE_MONTHLY_REQUESTS: z.coerce.number().int().min(0).max(1e12).default(10_000),
  /** How far (1-5 scale) below the incumbent a cheaper model may be judged and still be migrated to; also the rollback bar during grace. */
  GATEWAY_COST_MIGRATION_TOLERANCE: z.coerce.number().min(0).max(4).default(0.3),
  /** Days a new cost migration is on probation: boosted, and rolled back if its judged quality falls below the tolerance. */
  GATEWAY_COST_MIGRATION_GRACE_DAYS: z.coerce.number().min(0).max(365).default(7),
  /** A recommendation migrates a cell only when it saves at least this much a month (USD). */
  GATEWAY_MIGRATION_MIN_SAVINGS_USD: z.coerce.number().min(0).default(0),
  /** Captured exchanges kept per routing cell in the replay bank (the most recent). */
  GATEWAY_REPLAY_BANK_PER_CELL: z.coerce.number().int().min(1).max(10_000).default(50),
  /** Exchanges replayed per cell on each run of the regression-replay job. */
  GATEWAY_REPLAY_SAMPLE_PER_CELL: z.coerce.number().int().min(1).max(1_000).default(20),
  /** A judged drop (1-5 scale, replay minus original) beyond which a cell and model regressed. */
  GATEWAY_REGRESSION_THRESHOLD: z.coerce.number().min(0).max(4).default(0.5),
  /** Replayed pairs a cell and model needs before a drop can open an event. */
  GATEWAY_REGRESSION_MIN_SAMPLES: z.coerce.number().int().min(2).max(10_000).default(10),
  // Sign-in (multi-tenant mode): see the README's "Sign-in" section.
  /** The origin browsers reach this deployment at: redirects, the magic link, the SAML ACS, cookie Secure. */
  GATEWAY_PUBLIC_URL: z.string().url().optional(),
  /** development: without SMTP, magic links are written to the log. */
  NODE_ENV: z.string().default('production'),
  GATEWAY_SESSION_TTL_HOURS: z.coerce.number().min(0.01).max(8_760).default(168),
  GATEWAY_MAGIC_LINK_TTL_MINUTES: z.coerce.number().min(1).max(1_440).default(15),
  /** Magic links one e-mail address, and one client address, may ask for per hour. */
  GATEWAY_MAGIC_LINK_PER_HOUR: z.coerce.number().int().min(1).max(10_000).default(5),
  GATEWAY_SMTP_URL: z.string().url().optional(),
  GATEWAY_SMTP_FROM: z.string().default('gateway@localhost'),
  GATEWAY_GOOGLE_CLIENT_ID: z.string().optional(),
  GATEWAY_GOOGLE_CLIENT_SECRET: z.string().optional(),
  /** The OpenID Connect issuer whose discovery document is read (any OIDC provider works). */
  GATEWAY_GOOGLE_ISSUER: z.string().url().default('https://accounts.google.com'),
  GATEWAY_GITHUB_CLIENT_ID: z.string().optional(),
  GATEWAY_GITHUB_CLIENT_SECRET: z.string().optional(),
  GATEWAY_GITHUB_AUTHORIZE_URL: z.string().url().default('https://github.com/login/oauth/authorize'),
  GATEWAY_GITHUB_TOKEN_URL: z.string().url().default('https://github.com/login/oauth/access_token'),
  GATEWAY_GITHUB_API_URL: z.string().url().default('https://api.github.com'),
  /** AES-256-GCM key (base64 or hex, 32 bytes) sealing stored provider keys; single mode makes one in GATEWAY_DATA_DIR when unset. */
  GATEWAY_ENCRYPTION_KEY: z.string().optional(),
  /** The id stored beside every sealed row, naming the key that sealed it (rotation). */
  GATEWAY_ENCRYPTION_KEY_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, 'letters, digits, _ and -, at most 32')
    .default('k1'),
  /** Earlier keys still opening old rows until `npm run rotate-keys` re-seals them: `id:key,id:key`. */
  GATEWAY_ENCRYPTION_PREVIOUS_KEYS: z.string().optional(),
  /** A workspace without its own key for a provider uses the deployment's (environment) key; false: it does not. */
  GATEWAY_SHARE_DEPLOYMENT_KEYS: bool.default(true),
  /** Let custom providers and workspace base URLs reach loopback, private, link-local and metadata addresses. */
  GATEWAY_ALLOW_PRIVATE_PROVIDER_URLS: bool.default(false),
  /** Stripe (multi mode billing): the secret API key; billing endpoints answer 503 without it. */
  STRIPE_SECRET_KEY: z.string().optional(),
  /** Webhook signing secrets (whsec_...), comma-separated while one is being rotated. */
  STRIPE_WEBHOOK_SECRET: z.string().optional(),
  /** Seconds a webhook's signed timestamp may be away from now. */
  STRIPE_WEBHOOK_TOLERANCE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  /** Stripe price ids of the paid tiers. */
  STRIPE_PRICE_TEAM: z.string().optional(),
  STRIPE_PRICE_ENTERPRISE: z.string().optional(),
  STRIPE_PRICE_INTELLIGENCE: z.string().optional(),
  /** Another address for Stripe's API (a local stand-in, a proxy): http(s)://host:port. */
  STRIPE_API_BASE: z.string().url().optional(),
  /** Where checkout and the billing portal send the user back to. */
  GATEWAY_BILLING_RETURN_URL: z.string().url().default('http://localhost:8080/'),
});

export type Config = z.infer<typeof ConfigSchema> & {
  /** Provider credentials and base URLs (`<NAME>_API_KEY`, `<NAME>_BASE_URL`), resolved by the provider catalog. */
  providerEnv: Record<string, string | undefined>;
};

const PROVIDER_ENV = /^[A-Z0-9_]+_(API_KEY|BASE_URL)$/;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(withoutEmptyValues(env));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const providerEnv: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) if (PROVIDER_ENV.test(k) && v) providerEnv[k] = v;
  return { ...parsed.data, providerEnv };
}

/**
 * `NAME=` (as compose files and .env templates leave a setting) means unset, not an empty value:
 * otherwise PORT= would coerce to port 0 and GATEWAY_EXPLORATION_RATE= to 0.
 */
function withoutEmptyValues(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v.trim() !== '') out[k] = v;
  return out;
}

/**
 * Provider credentials as they are now: the start-up environment, overlaid with GATEWAY_ENV_FILE
 * when set. POST /v1/providers/reload calls this, so keys edited in that file apply without a restart.
 */
export function currentProviderEnv(config: Config): Record<string, string | undefined> {
  if (!config.GATEWAY_ENV_FILE) return config.providerEnv;
  let parsed: Record<string, string | undefined> = {};
  try {
    parsed = parseEnv(readFileSync(config.GATEWAY_ENV_FILE, 'utf8')) as Record<string, string | undefined>;
  } catch (err) {
    throw new Error(`GATEWAY_ENV_FILE ${config.GATEWAY_ENV_FILE} could not be read: ${(err as Error).message}`);
  }
  const merged = { ...config.providerEnv };
  for (const [k, v] of Object.entries(parsed)) if (PROVIDER_ENV.test(k)) merged[k] = v || undefined;
  return merged;
}
