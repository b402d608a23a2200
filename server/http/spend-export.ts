import type { Express, Request, Response } from 'express';
import { GatewayError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { describeZodError } from '../lib/zod-errors.js';
import { SpendExportInput } from '../modules/spend/schemas.js';
import type { SpendService } from '../modules/spend/service.js';
import type { Principal } from '../modules/tokens/authenticator.js';
import { insufficientTier, tierIncludes } from '../trpc/procedures.js';
import { reportError } from './errors.js';

// GET /v1/spend/export: the /v1/spend/by figures of every dimension the tier may see, as CSV (one
// row per dimension and key) or JSON, written row by row, with a filename to save it under. Hand-
// written because a download is not a JSON procedure.

export const SPEND_EXPORT_PATH = '/v1/spend/export';

export interface SpendExportDeps {
  auth: { authenticate(header: string | undefined): Promise<Principal> };
  /** Bearer or session cookie (the services' request authenticator); without it, bearer tokens only. */
  signIn?: { requestAuth: { authenticate(req: Request): Promise<Principal> } };
  spend: SpendService;
  logger: Logger;
}

const CSV_HEADER = [
  'dimension',
  'key',
  'label',
  'spend_usd',
  'calls',
  'input_tokens',
  'output_tokens',
  'share',
  'previous_spend_usd',
  'change_pct',
  'period_from',
  'period_to',
];

export function mountSpendExport(app: Express, deps: SpendExportDeps): void {
  app.get(SPEND_EXPORT_PATH, (req: Request, res: Response) => {
    exportSpend(deps, req, res).catch((err: unknown) => reportError(deps.logger, res, err));
  });
}

async function exportSpend(deps: SpendExportDeps, req: Request, res: Response): Promise<void> {
  const principal = deps.signIn
    ? await deps.signIn.requestAuth.authenticate(req)
    : await deps.auth.authenticate(req.headers.authorization);
  if (!tierIncludes(principal.tier, 'team')) throw insufficientTier('team', principal.tier);
  const parsed = SpendExportInput.safeParse(req.query);
  if (!parsed.success) throw new GatewayError('invalid_request_error', describeZodError(parsed.error));
  const { format, ...window } = parsed.data;
  const tables = await deps.spend.everyDimension(principal.tenantId, principal.tier, window);
  const period = tables[0]?.period;
  const stamp = (iso: string | undefined) => (iso ?? '').slice(0, 19).replace(/[-:]/g, '');
  const filename = `spend-${stamp(period?.from)}-${stamp(period?.to)}.${format}`;
  res.status(200);
  res.setHeader('content-disposition', `attachment; filename="${filename}"`);
  res.setHeader('cache-control', 'no-store');
  if (format === 'json') {
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.write(`{"period":${JSON.stringify(period)},"dimensions":[`);
    tables.forEach((t, i) => {
      res.write((i ? ',' : '') + JSON.stringify(t));
    });
    res.end(']}');
    return;
  }
  res.setHeader('content-type', 'text/csv; charset=utf-8');
  res.write(`${CSV_HEADER.join(',')}\r\n`);
  for (const t of tables)
    for (const item of t.items)
      res.write(
        `${[
          t.dimension,
          item.key,
          item.label ?? '',
          item.spendUsd,
          item.calls,
          item.inputTokens,
          item.outputTokens,
          item.share,
          item.previousSpendUsd,
          item.changePct ?? '',
          t.period.from,
          t.period.to,
        ]
          .map(csvField)
          .join(',')}\r\n`,
      );
  res.end();
}

/**
 * One CSV field (RFC 4180 quoting). Text a spreadsheet would read as a formula (=, +, -, @ first:
 * a token name is user input) is prefixed with a quote so it stays text.
 */
export function csvField(v: string | number): string {
  if (typeof v === 'number') return String(v);
  const text = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
