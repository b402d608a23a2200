import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { gatewayErrorOf, type GatewayErrorInfo, type LiveEvent } from '../../sdk/index.js';
import { CliError, clientFor, globalOptions } from '../client.js';
import { describeError, describeRefusal, innermostMessage, timedOut } from '../errors.js';
import { parsePositiveInteger } from '../options.js';
import { writeErr } from '../io.js';
import { modelName, printLine, shortDate, visible } from '../output.js';
import { usd } from '../usd.js';

// gatewayctl tail: follows the live tap (GET /v1/analytics/live, through the SDK's
// gw.live.subscribe) and prints one line per completed request of the workspace, or each event
// as one JSON line with --json. When the stream ends (a gateway restart) or goes silent past three
// keep-alives (a connection that died without closing) it reconnects, waiting for the gateway to
// be back; events in the gap are not replayed. While the gateway restarts, what answers may be a
// reverse proxy's 502/503/504 or the gateway's own 503 service_unavailable (it is shutting down):
// those are waited out too. Ctrl-C stops at once, also during a wait.

const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 10_000;
/** Three missed keep-alives (the gateway sends one every 15 s): the connection died without closing. */
const IDLE_TIMEOUT_MS = 45_000;

/** A proxy's answer while the gateway behind it is down or restarting. */
const UNAVAILABLE_STATUSES = new Set([502, 503, 504]);

/** Whether a refusal means "not there right now" (retried) rather than "no" (final: a bad token, a 4xx). */
function isUnavailable(refusal: GatewayErrorInfo): boolean {
  return UNAVAILABLE_STATUSES.has(refusal.status) || refusal.type === 'service_unavailable';
}

interface TailOptions {
  count?: number;
  reconnect: boolean;
}

/**
 * Why tail is about to reconnect, for the line it prints while it waits: `failure` is what ended
 * the last attempt (undefined when the gateway closed the stream), `streamOpen` whether that
 * attempt had got a stream. While the gateway is down every attempt is refused: saying "stream
 * ended" for each would hide that there is no stream at all.
 */
function reconnectReason(failure: unknown, streamOpen: boolean, options: { url: string; timeout?: number }): string {
  if (failure === undefined) return 'stream ended';
  const refusal = gatewayErrorOf(failure);
  if (refusal) return `gateway unavailable (${refusal.status || '-'} ${refusal.type})`;
  // No stream this time: the connection was refused, or nothing answered in time.
  if (!streamOpen) return describeError(failure, options);
  if (timedOut(failure)) return `stream silent for ${IDLE_TIMEOUT_MS / 1000} s`;
  return `connection to the gateway lost (${innermostMessage(failure)})`;
}

/** One line per request: time, id, model, routing, outcome, latency, tokens, cost, prompt preview. */
export function formatLiveEvent(e: LiveEvent): string {
  const model = modelName(e.provider, e.model);
  const task = e.taskType ? `${e.taskType}/${e.complexity ?? '-'}` : '-';
  const outcome = e.cached ? 'cached' : e.status;
  // Embeddings calls are told apart by their routing column: they have no routing.
  const routedBy = e.endpoint === 'embeddings' ? 'embeddings' : e.routedBy;
  const preview = e.preview ? ` "${e.preview}"` : '';
  return `${shortDate(e.createdAt, { seconds: true })}  ${e.id}  ${model}  ${routedBy}  ${task}  ${outcome}  ${e.latencyMs} ms  ${e.inputTokens}->${e.outputTokens} tok  ${usd(e.cost)}${preview}`;
}

export function registerTailCommand(program: Command): void {
  program
    .command('tail')
    .description('Follow completed requests of this workspace live, one line each (Ctrl-C stops)')
    .option('--count <n>', 'exit after this many requests', parsePositiveInteger)
    .option('--no-reconnect', 'exit when the stream ends instead of reconnecting')
    .action(async (opts: TailOptions, command: Command) => {
      const gw = clientFor(command);
      const options = globalOptions(command);
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      let seen = 0;
      let backoff = FIRST_BACKOFF_MS;
      let everConnected = false;
      /** What ended the last attempt (undefined: the gateway closed the stream), for the wait's message. */
      let failure: unknown;
      /** Whether the last attempt got a stream before it ended. */
      let streamOpen = false;
      try {
        for (;;) {
          failure = undefined;
          streamOpen = false;
          try {
            const subscription = await gw.live.subscribe({ signal: controller.signal, idleTimeoutMs: IDLE_TIMEOUT_MS });
            everConnected = true;
            streamOpen = true;
            backoff = FIRST_BACKOFF_MS;
            for await (const message of subscription) {
              if (message.type === 'dropped') {
                writeErr(
                  `warning: ${message.dropped} events dropped: this client is reading slower than requests complete\n`,
                );
                continue;
              }
              printLine(options.json ? JSON.stringify(message.event) : formatLiveEvent(message.event));
              if (opts.count !== undefined && ++seen >= opts.count) return;
            }
          } catch (err) {
            if (controller.signal.aborted) return;
            // The gateway's refusal (a bad or disabled token, ...) is final, and so is a gateway
            // never reached; one that goes away after a stream was open is waited for (a restart),
            // also while a proxy in front of it answers 502/503/504 or it answers 503 itself.
            const refusal = gatewayErrorOf(err);
            if (refusal && !(everConnected && isUnavailable(refusal)))
              throw new CliError(describeRefusal(refusal, options.url));
            if (!everConnected) throw err;
            failure = err;
          }
          if (controller.signal.aborted || !opts.reconnect) return;
          const why = reconnectReason(failure, streamOpen, options);
          writeErr(`${visible(why)}; reconnecting in ${Math.round(backoff / 100) / 10} s\n`);
          try {
            await sleep(backoff, undefined, { signal: controller.signal });
          } catch (err) {
            if (controller.signal.aborted) return; // Ctrl-C during the wait
            throw err;
          }
          backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        }
      } finally {
        controller.abort();
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    });
}
