// The contract between the router (server.ts) and the three wire-format modules.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimState } from './config.js';
import type { ScriptedUsage, SimEndpoint } from './types.js';

/** What a path asks for, before the body is known. */
export type RouteKind = 'chat' | 'stream' | 'models' | 'model' | 'embed' | 'batchEmbed';

export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  kind: RouteKind;
  endpoint: SimEndpoint;
  /** Model named by the path (Gemini, model lookups), else undefined. */
  pathModel?: string;
  query: string;
  /** Parsed JSON body for POST requests ({} for GET). */
  body: Record<string, unknown>;
  state: SimState;
  /** Set when a fault rule asks to cut this stream. */
  cutAfter?: number;
  /** Set when a fault rule delays a stream's first content. */
  firstContentDelayMs?: number;
  /** Set when a fault rule asks for an answer without usage. */
  omitUsage?: boolean;
  /** Set when a rule scripts the usage to report. */
  usage?: ScriptedUsage;
}

export interface FormatApi {
  authorized(req: IncomingMessage, query: string): boolean;
  /** The provider's own error body for this status (message defaults to a status-specific text). */
  errorBody(status: number, message?: string): string;
  serve(x: Exchange): void | Promise<void>;
}

export function defaultMessage(status: number): string {
  switch (status) {
    case 400:
      return 'Invalid request (simulated).';
    case 401:
      return 'Invalid or missing API key.';
    case 403:
      return 'Permission denied (simulated).';
    case 404:
      return 'Not found.';
    case 408:
      return 'Request timed out (simulated).';
    case 413:
      return 'Request body too large.';
    case 429:
      return 'Rate limit exceeded (simulated). Please retry after a short wait.';
    case 500:
      return 'The server had an error while processing your request (simulated).';
    case 502:
      return 'Bad gateway (simulated).';
    case 503:
      return 'The service is temporarily unavailable (simulated).';
    case 504:
      return 'Upstream timed out (simulated).';
    case 529:
      return 'Overloaded (simulated).';
    default:
      return `Simulated error with status ${status}.`;
  }
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Positive integer or undefined (max_tokens style fields). */
export function intOrUndef(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? Math.floor(v) : undefined;
}

export function stopList(v: unknown): string[] {
  if (typeof v === 'string') return v ? [v] : [];
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && s.length > 0) : [];
}

export function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (typeof h !== 'string' || !h.startsWith('Bearer ')) return undefined;
  const token = h.slice(7).trim();
  return token || undefined;
}

export function queryParam(query: string, name: string): string | undefined {
  if (!query) return undefined;
  return new URLSearchParams(query).get(name) ?? undefined;
}
