import type { Command } from 'commander';
import { gatewayErrorOf, type LiveEvent } from '../../sdk/index.js';
import { CliError, clientFor, globalOptions } from '../client.js';
import { parsePositiveInteger } from '../options.js';
import { printLine, shortDate } from '../output.js';

// gatewayctl tail: follows the live tap (GET /v1/analytics/live, through the SDK's
// gw.live.subscribe) and prints one line per completed request of the workspace, or each event
// as one JSON line with --json. When the stream ends (a gateway restart) or goes silent past three
// keep-alives (a connection that died without closing) it reconnects, waiting for the gateway to
// be back; events in the gap are not replayed.

const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 10_000;
/** Three missed keep-alives (the gateway sends one every 15 s): the connection died without closing. */
const IDLE_TIMEOUT_MS = 45_000;

interface TailOptions {
  count?: number;
  reconnect: boolean;
}

const usd = (v: number) => (v === 0 ? '$0' : `$${v.toPrecision(3)}`);

/** One line per request: time, id, model, routing, outcome, latency, tokens, cost, prompt preview. */
export function formatLiveEvent(e: LiveEvent): string {
  const model = e.provider || e.model ? `${e.provider ?? '-'}/${e.model ?? '-'}` : '-';
  const task = e.taskType ? `${e.taskType}/${e.complexity ?? '-'}` : '-';
  const outcome = e.cached ? 'cached' : e.status;
  const preview = e.preview ? ` "${e.preview}"` : '';
  return `${shortDate(e.createdAt, { seconds: true })}  ${e.id}  ${model}  ${e.routedBy}  ${task}  ${outcome}  ${e.latencyMs} ms  ${e.inputTokens}->${e.outputTokens} tok  ${usd(e.cost)}${preview}`;
}

export function registerTailCommand(program: Command): void {
  program
    .command('tail')
    .description('Follow completed requests of this workspace live, one line each (Ctrl-C stops)')
    .option('--count <n>', 'exit after this many requests', parsePositiveInteger)
    .option('--no-reconnect', 'exit when the stream ends instead of reconnecting')
    .action(async (opts: TailOptions, command: Command) => {
      const gw = clientFor(command);
      const { json } = globalOptions(command);
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      let seen = 0;
      let backoff = FIRST_BACKOFF_MS;
      let everConnected = false;
      try {
        for (;;) {
          try {
            const subscription = await gw.live.subscribe({ signal: controller.signal, idleTimeoutMs: IDLE_TIMEOUT_MS });
            everConnected = true;
            backoff = FIRST_BACKOFF_MS;
            for await (const message of subscription) {
              if (message.type === 'dropped') {
                process.stderr.write(`warning: ${message.dropped} events dropped: this client is reading slower than requests complete\n`);
                continue;
              }
              printLine(json ? JSON.stringify(message.event) : formatLiveEvent(message.event));
              if (opts.count !== undefined && ++seen >= opts.count) return;
            }
          } catch (err) {
            if (controller.signal.aborted) return;
            // The gateway's refusal (a bad or disabled token, ...) is final, and so is a gateway
            // never reached; one that goes away after a stream was open is waited for (a restart).
            const refusal = gatewayErrorOf(err);
            if (refusal) throw new CliError(`${refusal.type}: ${refusal.message}`);
            if (!everConnected) throw err;
          }
          if (controller.signal.aborted || !opts.reconnect) return;
          process.stderr.write(`stream ended; reconnecting in ${Math.round(backoff / 100) / 10} s\n`);
          await new Promise((r) => setTimeout(r, backoff));
          backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        }
      } finally {
        controller.abort();
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    });
}
