// Upstream simulator: one small HTTP server speaking the OpenAI, Anthropic and Gemini wire
// formats, with fault injection. Used as every upstream in tests and benchmarks, and started on
// loopback by the gateway when no provider credential is configured.
import type { AddressInfo } from 'node:net';
import { SimState } from './config.js';
import { createSimulatorServer } from './server.js';
import type { FaultRule, Simulator, SimulatorOptions } from './types.js';

export type {
  CellQuality,
  FaultRule,
  RecordedRequest,
  SimEndpoint,
  SimFormat,
  Simulator,
  SimulatorOptions,
} from './types.js';
export { DEFAULT_MODELS } from './config.js';

export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const state = new SimState(opts);
  const server = createSimulatorServer(state);
  const host = opts.host ?? '127.0.0.1';

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  const { port } = server.address() as AddressInfo;
  // IPv6 literals need brackets in a URL; a wildcard bind is reachable on loopback.
  const urlHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}`;
  let closing: Promise<void> | undefined;

  return {
    url,
    baseUrls: { openai: `${url}/openai/v1`, anthropic: `${url}/anthropic`, gemini: `${url}/gemini/v1beta` },
    requests: state.requests,
    setFaults: (rules: FaultRule[]) => state.setFaults(rules),
    clearFaults: () => state.setFaults([]),
    configure: (patch) => state.configure(patch),
    resetRequests: () => {
      state.requests.length = 0;
    },
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive, streaming and deliberately hung sockets would otherwise hold close() open.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
