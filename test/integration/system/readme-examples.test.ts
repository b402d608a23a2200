import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../support/database.js';
import { startServerProcess, type ServerProcess } from '../../support/process.js';
import { writeCostMigration, writeRegressionEvent } from '../../support/cycle-rows.js';

// Every example of the user's manual (README.md, and the pages under docs/) runs as written against
// a gateway started as `npm start` starts it on a fresh machine: no provider key (the built-in
// simulator stands in for openai, anthropic and gemini), its own database, the admin token read
// from the start banner. Shell blocks run in bash (gatewayctl on the PATH, curl failing on an
// HTTP error status), TypeScript blocks under tsx with the SDK imported by its package name.
//
// An example that cannot run here says so in an HTML comment on the line before its fence:
//   <!-- example: skip (why) -->           needs a real key, a second service, minutes of time...
//   <!-- example: runs until stopped -->   it keeps running (a live tap): it passes while it runs
// The only rewrites: the gateway's address for http://127.0.0.1:8080, the banner's token for
// gw_..., and real ids for the placeholders tok_..., abt_..., req_... (and tok_123, abt_123, req_123),
// and for cmig_... and reg_...: a cost migration and a regression event are made by the gateway's
// own cycles from weeks of judged traffic, so the test writes one row of each as those cycles do.

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PAGES = ['README.md', ...listDocs()];
const RUNNABLE: Record<string, 'sh' | 'ts'> = {
  sh: 'sh',
  bash: 'sh',
  shell: 'sh',
  ts: 'ts',
  typescript: 'ts',
  js: 'ts',
  javascript: 'ts',
};
/** How long one example may take; gatewayctl starts a process per command. */
const EXAMPLE_TIMEOUT_MS = 90_000;
/** A `runs until stopped` example passes when it is still running (or ended well) after this. */
const UNTIL_STOPPED_MS = 5_000;

interface Example {
  page: string;
  line: number;
  heading: string;
  kind: 'sh' | 'ts';
  code: string;
  skip?: string;
  untilStopped: boolean;
}

function listDocs(): string[] {
  const dir = path.join(ROOT, 'docs');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
}

/** The fenced blocks of a page in a language that runs, with the marker before each. */
function extractExamples(page: string, text: string): Example[] {
  const lines = text.split('\n');
  const out: Example[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^#{1,6} /.test(line)) heading = line.replace(/^#+ /, '');
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(line);
    if (!open) continue;
    const fence = open[2]!;
    const lang = open[3]!.toLowerCase();
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.trimStart().startsWith(fence)) body.push(lines[j++]!);
    let k = i - 1;
    while (k >= 0 && lines[k]!.trim() === '') k--;
    const marker = k >= 0 ? /^<!--\s*example:\s*(.*?)\s*-->$/.exec(lines[k]!.trim()) : null;
    const kind = RUNNABLE[lang];
    if (kind) {
      const example: Example = {
        page,
        line: i + 1,
        heading,
        kind,
        code: body.join('\n'),
        untilStopped: marker?.[1] === 'runs until stopped',
      };
      const skip = marker && /^skip\b\s*\(?(.*?)\)?$/.exec(marker[1]!);
      if (skip) example.skip = skip[1] || 'marked skip';
      else if (marker && !example.untilStopped)
        throw new Error(`${page}:${k + 1}: unknown example marker: ${marker[1]}`);
      out.push(example);
    }
    i = j;
  }
  return out;
}

const examples = PAGES.flatMap((page) => extractExamples(page, readFileSync(path.join(ROOT, page), 'utf8')));

let gateway: ServerProcess;
let baseUrl: string;
let adminToken: string;
let dropDatabase: () => Promise<void>;
let databaseUrl: string;
let workDir: string;
let binDir: string;
let examplesDir: string;
let cliHost: ChildProcess | undefined;

beforeAll(async () => {
  const db = await createTestDatabase();
  dropDatabase = db.drop;
  databaseUrl = db.url;
  workDir = mkdtempSync(path.join(tmpdir(), 'gw-readme-'));
  // A fresh machine: no provider key or address in the environment, no admin token configured.
  const env: Record<string, string | undefined> = {};
  for (const k of Object.keys(process.env))
    if (/_(API_KEY|BASE_URL)$/.test(k) || k.startsWith('GATEWAY_')) env[k] = undefined;
  gateway = startServerProcess({
    ...env,
    DATABASE_URL: db.url,
    GATEWAY_DATA_DIR: path.join(workDir, 'data'),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
  });
  const [, port] = await gateway.waitFor(/listening on http:\/\/[\d.]+:(\d+)/, 60_000);
  [, adminToken] = (await gateway.waitFor(/Admin token \(shown once.*\): (gw_\S+)/)) as unknown as [string, string];
  await gateway.waitFor(/built-in simulator at \S+ stands in for openai, anthropic and gemini/);
  baseUrl = `http://127.0.0.1:${port}`;

  // `gatewayctl` as a user has it on the PATH (README: `npm link`, or npx in a checkout). The
  // examples run dozens of commands: they go to one process that runs them one after the other
  // (test/support/cli-host.ts) rather than each starting its own; `tail`, which runs until it is
  // stopped, runs as the real binary.
  binDir = path.join(workDir, 'bin');
  mkdirSync(binDir);
  const realBinary = `"${process.execPath}" "${path.join(ROOT, 'bin/gatewayctl.js')}" "$@"`;
  const cliEntry = ['cli/index.ts', 'cli/src/index.ts'].map((f) => path.join(ROOT, f)).find((f) => existsSync(f));
  let shim = `#!/bin/sh\nexec ${realBinary}\n`;
  if (cliEntry) {
    cliHost = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/support/cli-host.ts'), cliEntry], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const hostPort = await new Promise<string>((resolve, reject) => {
      let said = '';
      cliHost!.stdout!.on('data', (d) => {
        said += d;
        const m = /listening on (\d+)/.exec(said);
        if (m) resolve(m[1]!);
      });
      cliHost!.once('exit', (code) => reject(new Error(`the gatewayctl host exited (${code}): ${said}`)));
    });
    writeFileSync(
      path.join(binDir, 'gatewayctl-client.mjs'),
      [
        `const env = {};`,
        `for (const k of ['GATEWAY_URL', 'GATEWAY_TOKEN', 'GATEWAY_TIMEOUT']) env[k] = process.env[k];`,
        `const res = await fetch('http://127.0.0.1:${hostPort}/', { method: 'POST', body: JSON.stringify({ args: process.argv.slice(2), env }) });`,
        `const out = await res.json();`,
        `process.stdout.write(out.stdout);`,
        `process.stderr.write(out.stderr);`,
        `process.exitCode = out.code;`,
      ].join('\n'),
    );
    const client = `"${process.execPath}" "${path.join(binDir, 'gatewayctl-client.mjs')}" "$@"`;
    shim = `#!/bin/sh\nfor a in "$@"; do [ "$a" = tail ] && exec ${realBinary}; done\nexec ${client}\n`;
  }
  writeFileSync(path.join(binDir, 'gatewayctl'), shim, { mode: 0o755 });
  // TypeScript examples live in the checkout (so `openai` resolves), with a tsconfig that maps
  // the SDK's package name to its sources: no build step.
  examplesDir = mkdtempSync(path.join(ROOT, '.readme-examples-'));
  writeFileSync(
    path.join(examplesDir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        baseUrl: '.',
        paths: sdkPackagePaths(),
      },
    }),
  );
}, 120_000);

afterAll(async () => {
  cliHost?.kill();
  await gateway?.stop();
  await dropDatabase?.();
  if (examplesDir) rmSync(examplesDir, { recursive: true, force: true });
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** The names the SDK is imported by (the root package's, the sdk package's) -> its sources. */
function sdkPackagePaths(): Record<string, string[]> {
  const paths: Record<string, string[]> = {};
  for (const manifest of ['package.json', 'sdk/package.json']) {
    const file = path.join(ROOT, manifest);
    if (!existsSync(file)) continue;
    const { name } = JSON.parse(readFileSync(file, 'utf8')) as { name?: string };
    if (name) paths[name] = [path.join(ROOT, 'sdk/index.ts')];
  }
  return paths;
}

async function api<T = any>(method: string, p: string, body?: unknown): Promise<T> {
  const res = await fetch(baseUrl + p, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Runs one statement on the gateway's database (rows only the gateway's own cycles make). */
async function sql(text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

/** The single workspace's id. */
async function workspaceId(): Promise<string> {
  return (await sql('select id from tenants limit 1')).rows[0].id as string;
}

/** The workspace's cells a made-up migration takes in turn (one active migration per cell). */
const CELLS = ['qa', 'coding', 'creative', 'analysis', 'extraction', 'summarization'];
let made = 0;

/** The example's text with the address, the token and real ids for its placeholders. */
async function prepare(code: string): Promise<string> {
  let out = code.replace(/http:\/\/(127\.0\.0\.1|localhost):8080/g, baseUrl).replace(/\bgw_\.\.\./g, adminToken);
  if (/\btok_(\.\.\.|123)/.test(out)) {
    const { id } = await api<{ id: string }>('POST', '/v1/admin/tokens', { name: 'readme example' });
    out = out.replace(/\btok_(\.\.\.|123)/g, id);
  }
  if (/\babt_(\.\.\.|123)/.test(out)) {
    const { id } = await api<{ id: string }>('POST', '/v1/ab-tests', {
      name: 'readme example',
      status: 'paused',
      variants: ['openai/gpt-4o', 'anthropic/claude-sonnet-4-5'].map((pm) => {
        const [provider, model] = pm.split('/');
        return { provider, model, taskType: 'creative', complexity: 'complex' };
      }),
    });
    out = out.replace(/\babt_(\.\.\.|123)/g, id);
  }
  if (/\bcmig_(\.\.\.|123)/.test(out)) {
    const id = `cmig_readme${++made}example`;
    await writeCostMigration(sql, id, await workspaceId(), CELLS[made % CELLS.length]);
    out = out.replace(/\bcmig_(\.\.\.|123)/g, id);
  }
  if (/\breg_(\.\.\.|123)/.test(out)) {
    const id = `reg_readme${++made}example`;
    await writeRegressionEvent(sql, id, await workspaceId());
    out = out.replace(/\breg_(\.\.\.|123)/g, id);
  }
  if (/\breq_(\.\.\.|123)/.test(out)) {
    const answer = await api<{ _gateway: { requestId: string } }>('POST', '/v1/chat/completions', {
      model: '',
      messages: [{ role: 'user', content: `a request to rate ${Math.random()}` }],
    });
    out = out.replace(/\breq_(\.\.\.|123)/g, answer._gateway.requestId);
  }
  return out;
}

interface Run {
  code: number | null;
  output: string;
  timedOut: boolean;
}

/** Runs a command; with `stopAfterMs`, a command still running then is stopped and reported as such. */
function run(file: string, args: string[], stopAfterMs?: number): Promise<Run> {
  return new Promise((resolve) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('GATEWAY_')) env[k] = v;
    env.PATH = `${binDir}${path.delimiter}${process.env.PATH ?? ''}`;
    env.GATEWAY_TOKEN = adminToken;
    env.GATEWAY_URL = baseUrl;
    const child = spawn(file, args, {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      // The whole process group: a shell's children too.
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }, stopAfterMs ?? EXAMPLE_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, timedOut });
    });
  });
}

/** Bash in strict mode, every command traced; curl fails on an HTTP error status. */
const SHELL_PRELUDE = ['set -eo pipefail -x', 'curl() { command curl --fail-with-body -S "$@"; }', ''].join('\n');

/**
 * Runs an example in the checkout (where `npx gatewayctl` works, as the README says), then removes
 * the files it wrote there (an export, say). Only new files at the top: a directory that appears
 * meanwhile is another test's (`npm run build`'s dist/).
 */
async function runExample(example: Example): Promise<Run> {
  const before = new Set(readdirSync(ROOT));
  try {
    return await runIn(example);
  } finally {
    for (const entry of readdirSync(ROOT, { withFileTypes: true }))
      if (entry.isFile() && !before.has(entry.name)) rmSync(path.join(ROOT, entry.name), { force: true });
  }
}

async function runIn(example: Example): Promise<Run> {
  const code = await prepare(example.code);
  const stopAfter = example.untilStopped ? UNTIL_STOPPED_MS : undefined;
  if (example.kind === 'sh') return run('bash', ['-c', SHELL_PRELUDE + code], stopAfter);
  const file = path.join(examplesDir, `${path.basename(example.page, '.md')}-${example.line}.ts`);
  writeFileSync(file, `${code}\nexport {};\n`);
  const tsx = path.join(ROOT, 'node_modules/.bin/tsx');
  return run(tsx, ['--tsconfig', path.join(examplesDir, 'tsconfig.json'), file], stopAfter);
}

describe('the examples of the manual, run as written on a fresh machine', () => {
  it('finds the examples (README.md has dozens)', () => {
    expect(examples.filter((e) => e.page === 'README.md').length).toBeGreaterThan(15);
  });

  for (const example of examples) {
    const name = `${example.page}:${example.line} ${example.kind} (${example.heading})`;
    if (example.skip) {
      it.skip(`${name}: ${example.skip}`, () => undefined);
      continue;
    }
    it(
      name,
      async () => {
        const result = await runExample(example);
        const tail = result.output.split('\n').slice(-40).join('\n');
        const ok = example.untilStopped ? result.timedOut || result.code === 0 : !result.timedOut && result.code === 0;
        if (!ok) {
          const why = result.timedOut
            ? `did not finish within ${EXAMPLE_TIMEOUT_MS / 1000} s`
            : `exit code ${result.code}`;
          throw new Error(`the example at ${example.page}:${example.line} failed (${why}):\n${tail}`);
        }
      },
      EXAMPLE_TIMEOUT_MS + 10_000,
    );
  }
});
