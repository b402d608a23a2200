import type { CallOptions, ProviderSettings } from './types.js';
import { jsonHeaders, type HttpOptions } from './http.js';

/**
 * What every HTTP adapter shares: its name and base URL, JSON and SSE header sets built once (the
 * provider's auth headers included), the per-call HTTP options, and the rule for model discovery
 * (the provider's own list, else the built-in one).
 */
export abstract class HttpAdapter {
  readonly name: string;
  protected readonly baseUrl: string;
  protected readonly headers: Record<string, string>;
  protected readonly sseHeaders: Record<string, string>;
  protected readonly builtinModels: string[];

  constructor(settings: ProviderSettings, authHeaders: Record<string, string>) {
    this.name = settings.name;
    this.baseUrl = settings.baseUrl.replace(/\/+$/, '');
    this.headers = jsonHeaders(authHeaders);
    this.sseHeaders = jsonHeaders(authHeaders, 'text/event-stream');
    this.builtinModels = settings.builtinModels;
  }

  protected http(opts: CallOptions): HttpOptions {
    return { provider: this.name, signal: opts.signal, timeoutMs: opts.timeoutMs };
  }

  /**
   * The ids `fetchIds` finds, or the built-in list when it finds none. A failure is thrown: the
   * registry falls back to the built-in list and reports why (`discoveryError`).
   */
  protected async discover(fetchIds: () => Promise<string[]>): Promise<string[]> {
    const ids = await fetchIds();
    return ids.length > 0 ? ids : this.builtinModels;
  }
}
