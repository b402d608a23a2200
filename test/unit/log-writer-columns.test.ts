import { getTableColumns, getTableName, type Table } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { costLogs, requests } from '../../server/db/schema/index.js';
import { COST_COLUMNS, REQUEST_COLUMNS, type CostLogRow, type RequestLogRow } from '../../server/gateway/log-writer.js';
import type { Column, ColumnType } from '../../server/gateway/row-json.js';

// The log writer's bulk insert spells its column lists out (a positional JSON row per table, read
// back by position in SQL). These tests pin them to the drizzle tables, so a column added to
// `requests` or `cost_logs` cannot be forgotten by the writer, nor one written under a wrong name
// or type.

/** The log writer's type for a drizzle column, from the SQL type drizzle declares. */
function writerType(column: PgColumn): ColumnType {
  const sqlType = column.getSQLType();
  if (sqlType === 'text' || column.enumValues) return 'text';
  if (sqlType === 'integer') return 'int4';
  if (sqlType === 'smallint') return 'int2';
  if (sqlType === 'boolean') return 'bool';
  if (sqlType === 'timestamp with time zone') return 'timestamptz';
  if (sqlType.startsWith('numeric')) return 'numeric';
  throw new Error(`the log writer has no type for ${column.name} (${sqlType})`);
}

/** Every column of the table the writer fills: all but those the database generates. */
function tableColumns(table: Table): Array<readonly [string, string, ColumnType]> {
  return Object.entries(getTableColumns(table))
    .filter(([, column]) => !(column as PgColumn & { generatedIdentity?: unknown }).generatedIdentity)
    .map(([field, column]) => [field, column.name, writerType(column as PgColumn)] as const);
}

const sorted = <T extends object>(columns: ReadonlyArray<Column<T>> | Array<readonly [string, string, ColumnType]>) =>
  [...columns].map((c) => [...c]).sort((a, b) => a[1]!.localeCompare(b[1]!));

describe('log writer columns', () => {
  it('writes every column of requests, under its name and type', () => {
    expect(getTableName(requests)).toBe('requests');
    expect(sorted(REQUEST_COLUMNS)).toEqual(sorted(tableColumns(requests)));
  });

  it('writes every column of cost_logs but its generated id, under its name and type', () => {
    expect(getTableName(costLogs)).toBe('cost_logs');
    expect(Object.keys(getTableColumns(costLogs))).toContain('id');
    expect(sorted(COST_COLUMNS)).toEqual(sorted(tableColumns(costLogs)));
  });

  it('has row types with the same fields as the tables (checked by the compiler)', () => {
    // Each side's keys must be the other's: a field missing on either side fails `tsc`.
    type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
    const requestFields: Same<keyof RequestLogRow, keyof typeof requests.$inferInsert> = true;
    const costFields: Same<keyof CostLogRow, Exclude<keyof typeof costLogs.$inferInsert, 'id'>> = true;
    expect([requestFields, costFields]).toEqual([true, true]);
  });
});
