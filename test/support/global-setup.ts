import { rm } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { connectDatabase } from '../../server/db/client.js';
import { startEmbeddedPostgres } from '../../server/db/embedded.js';
import { runMigrations } from '../../server/db/migrate.js';
import { randomId } from '../../server/lib/ids.js';

// One Postgres for the whole run: DATABASE_URL when set, else an embedded one in a fresh
// directory. A migrated template database is made once; each test file clones it (fast).

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    templateDatabase: string;
  }
}

export default async function setup(project: TestProject) {
  const runId = randomId(8).toLowerCase();
  const dataDir = path.resolve('.test-data', `run-${runId}`);
  const embedded = process.env.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres(dataDir, { database: 'postgres' });
  const adminUrl = process.env.DATABASE_URL ?? embedded!.url;
  const template = `gw_tpl_${runId}`;

  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${template}`);
  const handle = connectDatabase(withDatabase(adminUrl, template), 2);
  await runMigrations(handle);
  await handle.close();

  project.provide('adminDatabaseUrl', adminUrl);
  project.provide('templateDatabase', template);

  return async () => {
    // Drop what this run created (clones are named after the template).
    const { rows } = await admin.query<{ datname: string }>(`select datname from pg_database where datname like $1`, [
      `gw_%${runId}%`,
    ]);
    for (const { datname } of rows)
      await admin.query(`drop database if exists ${datname} with (force)`).catch(() => undefined);
    await admin.end();
    await embedded?.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
