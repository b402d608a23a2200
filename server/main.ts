import { createServer, type RequestListener, type Server } from 'node:http';
import { createRequestListener } from './app.js';
import { loadConfig, type Config } from './config.js';
import { setupDatabase } from './db/setup.js';
import { dataPlaneCallsInFlight, dataPlaneCallsSettled } from './http/call-handler.js';
import { answerClientErrors } from './http/client-errors.js';
import { Drain } from './http/drain.js';
import { requestTimeoutOptions } from './http/server-timeouts.js';
import { createLogger } from './lib/logger.js';
import { createServices } from './services.js';
import { VERSION } from '../contracts/version.js';

// Entry point: config -> database (+ migrate) -> services -> app -> listen; graceful shutdown.

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const database = await setupDatabase(config);
  const services = createServices(config, database.handle, logger);

  await services.start();
  const drain = new Drain();
  const server = await listen(createRequestListener(services, drain), drain, config);
  // Only once the port is open: a start that fails before (the port taken) must not store a
  // generated token it never gets to print, which the next start would then not replace.
  const banner: string[] = [];
  if (config.GATEWAY_MODE === 'single') {
    const { generatedToken } = await services.tenants.bootstrapSingle(config.GATEWAY_TIER, config.GATEWAY_ADMIN_TOKEN);
    if (generatedToken) banner.push(`Admin token (shown once, store it now): ${generatedToken}`);
  } else {
    const { signIn } = services;
    const mail = config.GATEWAY_SMTP_URL
      ? 'sent by SMTP'
      : config.NODE_ENV === 'development'
        ? 'written to the log'
        : 'not sent (set GATEWAY_SMTP_URL)';
    banner.push(
      `Sign-in at ${signIn.publicUrl}/auth: ${[...signIn.oauth.configured(), 'SAML per workspace'].join(', ')}; magic links ${mail}`,
    );
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const lines = [
    `LLM gateway ${VERSION} listening on http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${port} (mode: ${config.GATEWAY_MODE})`,
    `Database: ${database.embedded ? `embedded PostgreSQL in ${config.GATEWAY_DATA_DIR}` : 'DATABASE_URL'}`,
    ...banner,
  ];
  const { simulator, simulatorRole } = services.dataPlane;
  if (simulator && simulatorRole === 'stand-in')
    lines.push(
      `No provider key set: the built-in simulator at ${simulator.url} stands in for openai, anthropic and gemini (answers say "simulated": true). Set e.g. OPENAI_API_KEY for real providers.`,
    );
  else if (simulator)
    lines.push(`GATEWAY_SIMULATOR=on: the built-in simulator at ${simulator.url} serves as provider "simulator".`);
  process.stdout.write(lines.map((l) => `  ${l}`).join('\n') + '\n');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => server.closeAllConnections(), config.GATEWAY_SHUTDOWN_TIMEOUT_MS);
    force.unref();
    // The steps below talk to the database; one that stopped answering (a partition) could hold
    // them until TCP gives up. The two documented bounds, plus a moment to close, hold regardless.
    const deadline = setTimeout(
      () => {
        logger.error(
          { afterMs: config.GATEWAY_SHUTDOWN_TIMEOUT_MS + config.GATEWAY_LOG_DRAIN_TIMEOUT_MS + CLOSE_GRACE_MS },
          'shutdown did not finish in time (database not answering?); exiting',
        );
        process.exit(1);
      },
      Math.min(
        config.GATEWAY_SHUTDOWN_TIMEOUT_MS + config.GATEWAY_LOG_DRAIN_TIMEOUT_MS + CLOSE_GRACE_MS,
        2_147_483_647,
      ),
    );
    deadline.unref();
    // Stop accepting, drop idle connections, refuse new requests on kept-alive ones (503), close
    // each busy one once its response is over: the server closes when the last response ends.
    const serverClosed = drain.start(server);
    // Live-tap streams never finish on their own: end them so the server can close.
    services.liveBus.endAll();
    // Running jobs wind down meanwhile, not after: both waits are bounded by the shutdown timeout,
    // and one after the other they could outlast an orchestrator's grace period.
    const jobsStopped = services.stopJobs();
    await serverClosed;
    clearTimeout(force);
    // Calls whose connection was forced closed still log themselves (client_closed) a few ticks
    // later: wait for that, briefly, so the log drain below writes their rows.
    if (!(await dataPlaneCallsSettled(CALLS_SETTLE_MS)))
      logger.warn({ calls: dataPlaneCallsInFlight() }, 'calls still running at shutdown; their log rows may be lost');
    await jobsStopped;
    await services.close();
    await database.stop();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // The operator's provider reload: credentials (and GATEWAY_ENV_FILE) re-read, models rediscovered,
  // on every process sharing the database.
  process.on('SIGHUP', () => {
    if (stopping) return;
    services.providers.reloadDeployment().then(
      (summary) => logger.info(summary, 'providers reloaded (SIGHUP)'),
      (err: unknown) => logger.error({ err }, 'provider reload (SIGHUP) failed'),
    );
  });
}

/** How long shutdown waits for the handlers of calls cut at its deadline to finish. */
const CALLS_SETTLE_MS = 2_000;
/** What shutdown may take past its two timeouts: the settle wait above, closing pools, stopping an embedded database. */
const CLOSE_GRACE_MS = 5_000;

function listen(listener: RequestListener, drain: Drain, config: Config): Promise<Server> {
  return new Promise((resolve, reject) => {
    // Longer than the usual load-balancer idle timeout (60 s), so the balancer closes first.
    const server = createServer(
      { keepAliveTimeout: 65_000, noDelay: true, ...requestTimeoutOptions(config) },
      listener,
    );
    answerClientErrors(server);
    drain.watch(server);
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => resolve(server));
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`Gateway failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
