import type { Command } from 'commander';
import { createParser } from 'eventsource-parser';
import type { LiveEvent } from '../../sdk/index.js';
import { CliError, globalOptions } from '../client.js';
import { parsePositiveInteger } from '../options.js';
import { printLine, shortDate } from '../output.js';

// gatewayctl tail: follows GET /v1/analytics/live (Server-Sent Events) and prints one line per
// completed request of the workspace, or each raw event as one JSON line with --json. When the
// stream ends (a gateway restart) it reconnects; events in the gap are not replayed.

const LIVE_PATH = '/v1/analytics/live';
const MAX_BACKOFF_MS = 10_000;


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
      const { url, token, json } = globalOptions(command);
      if (!token) throw new CliError('no API token: pass --token <token> or set GATEWAY_TOKEN');
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      let seen = 0;
      let backoff = 500;
      try {
        for (;;) {
          let connected = false;
          try {
            await follow(`${url.replace(/\/+$/, '')}${LIVE_PATH}`, token, controller.signal, {
              onOpen: () => {
                connected = true;
                backoff = 500;
              },
              onEvent: (data) => {
                if (json) printLine(data);
                else printLine(formatLiveEvent(JSON.parse(data) as LiveEvent));
                if (opts.count !== undefined && ++seen >= opts.count) controller.abort();
              },
              onDropped: (data) => {
                const d = JSON.parse(data) as { dropped: number };
                process.stderr.write(`warning: ${d.dropped} events dropped: this client is reading slower than requests complete\n`);
              },
            });
          } catch (err) {
            if (controller.signal.aborted) return;
            // HTTP errors (bad token, ...) and a gateway that never answered are final.
            if (err instanceof CliError || !connected) throw err;
          }
          if (controller.signal.aborted || !opts.reconnect) return;
          process.stderr.write(`stream ended; reconnecting in ${Math.round(backoff / 100) / 10} s\n`);
          await new Promise((r) => setTimeout(r, backoff));
          backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        }
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    });
}

interface FollowHandlers {
  onOpen(): void;
  onEvent(data: string): void;
  onDropped(data: string): void;
}

/** Reads one SSE connection until it ends or `signal` aborts. */
async function follow(url: string, token: string, signal: AbortSignal, handlers: FollowHandlers): Promise<void> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal });
  if (!res.ok || !res.body) {
    const body = (await res.json().catch(() => undefined)) as { error?: { type?: string; message?: string } } | undefined;
    throw new CliError(body?.error ? `${body.error.type}: ${body.error.message}` : `the gateway answered ${res.status}`);
  }
  handlers.onOpen();
  const parser = createParser({
    onEvent: (e) => {
      if (!e.event) handlers.onEvent(e.data);
      else if (e.event === 'dropped') handlers.onDropped(e.data);
    },
  });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } catch (err) {
    if (signal.aborted) return;
    throw err;
  } finally {
    reader.releaseLock();
  }
}
