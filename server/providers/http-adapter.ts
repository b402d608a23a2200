import { ProviderError, type CallOptions, type ProviderSettings } from './types.js';
import { jsonHeaders, type HttpOptions } from './http.js';

/**
 * What every HTTP adapter shares: its name and base URL, JSON and SSE header sets built once (the
 * provider's auth headers included), the per-call HTTP options, and the rule for model discovery
 * (the provider's own list; the registry falls back to the built-in one).
 */
export abstract class HttpAdapter {
  readonly name: string;
  protected readonly baseUrl: string;
  protected readonly headers: Record<string, string>;
  protected readonly sseHeaders: Record<string, string>;
  private readonly dispatcher: ProviderSettings['dispatcher'];

  constructor(settings: ProviderSettings, authHeaders: Record<string, string>) {
    this.name = settings.name;
    this.baseUrl = settings.baseUrl.replace(/\/+$/, '');
    this.headers = jsonHeaders(authHeaders);
    this.sseHeaders = jsonHeaders(authHeaders, 'text/event-stream');
    this.dispatcher = settings.dispatcher;
  }

  protected http(opts: CallOptions): HttpOptions {
    const http: HttpOptions = { provider: this.name, signal: opts.signal, timeoutMs: opts.timeoutMs };
    if (this.dispatcher) http.dispatcher = this.dispatcher;
    return http;
  }

  /** The ids `fetchIds` finds; a failure, or a listing without any id, is thrown (see requireListed). */
  protected async discover(fetchIds: () => Promise<string[]>): Promise<string[]> {
    const ids = await fetchIds();
    this.requireListed(ids);
    return ids;
  }

  /**
   * Throws when a models endpoint listed no model id (an answer in a shape not known here): the
   * registry then falls back to the built-in list and reports why (`discoveryError`) instead of
   * doing so silently.
   */
  protected requireListed(ids: readonly string[]): void {
    if (ids.length === 0)
      throw new ProviderError({
        provider: this.name,
        status: 200,
        retryable: false,
        kind: 'parse',
        message: `${this.name} listed no model ids at its models endpoint`,
      });
  }
}
