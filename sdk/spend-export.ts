import { errorOf } from './http.js';

// `gw.spendExport.download(opts)` against GET /v1/spend/export: the /v1/spend/by figures of every
// dimension the workspace's tier may see, as CSV or JSON text, with the filename the gateway gives.

export interface SpendExportOptions {
  format?: 'csv' | 'json';
  /** A window ending now (default 30d); or from/to (ISO 8601). */
  range?: '24h' | '7d' | '30d' | '90d';
  from?: string;
  to?: string;
  signal?: AbortSignal;
}

export interface SpendExport {
  /** From Content-Disposition, e.g. spend-20261101T000000-20261129T120000.csv */
  filename: string;
  contentType: string;
  body: string;
}

export interface SpendExportApi {
  download(opts?: SpendExportOptions): Promise<SpendExport>;
}

const SPEND_EXPORT_PATH = '/v1/spend/export';

export function spendExportApi(
  baseUrl: string,
  headers: () => Record<string, string>,
  fetchImpl: typeof fetch,
): SpendExportApi {
  return {
    async download(opts = {}) {
      const query = new URLSearchParams();
      for (const key of ['format', 'range', 'from', 'to'] as const) {
        const v = opts[key];
        if (v !== undefined) query.set(key, v);
      }
      const qs = query.size ? `?${query}` : '';
      const res = await fetchImpl(`${baseUrl}${SPEND_EXPORT_PATH}${qs}`, {
        headers: headers(),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      if (!res.ok) throw await errorOf(res);
      const disposition = res.headers.get('content-disposition') ?? '';
      return {
        filename: /filename="([^"]+)"/.exec(disposition)?.[1] ?? `spend.${opts.format ?? 'csv'}`,
        contentType: res.headers.get('content-type') ?? '',
        body: await res.text(),
      };
    },
  };
}
