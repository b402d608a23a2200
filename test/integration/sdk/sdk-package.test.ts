import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../../contracts/version.js';
import { startTestEnv, type TestEnv } from '../../support/harness.js';

// The SDK as another TypeScript project gets it: `npm pack` of the sdk/ workspace (its build
// generates the router's declaration and checks it against the server's), the tarball installed
// into an empty project (from the npm cache where it can), then type-checked there with that project's own
// TypeScript through the package's `exports`, and run against a real gateway.

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** The TypeScript the consumer project has (a TypeScript app brings its own; @trpc/client asks for one as a peer). */
const TYPESCRIPT = JSON.parse(await readFile(path.join(ROOT, 'node_modules/typescript/package.json'), 'utf8')).version;
const MAX_PACKAGE_BYTES = 20 * 1024 * 1024;

/** The environment for a nested npm: none of the npm_* settings of an `npm test` that runs this. */
function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
}

async function sizeOf(dir: string, skip: (rel: string) => boolean, rel = ''): Promise<number> {
  let total = 0;
  for (const entry of await readdir(path.join(dir, rel), { withFileTypes: true })) {
    const child = path.join(rel, entry.name);
    if (skip(child)) continue;
    if (entry.isDirectory()) total += await sizeOf(dir, skip, child);
    else if (entry.isFile()) total += (await stat(path.join(dir, child))).size;
  }
  return total;
}

let env: TestEnv;
let consumer: string;
const TSC = () => path.join(consumer, 'node_modules/typescript/bin/tsc');

beforeAll(async () => {
  consumer = await mkdtemp(path.join(tmpdir(), 'gateway-sdk-consumer-'));
  const [{ stdout: packed }, started] = await Promise.all([
    run('npm', ['pack', '--workspace', 'sdk', '--pack-destination', consumer, '--silent'], {
      cwd: ROOT,
      env: npmEnv(),
      timeout: 240_000,
    }),
    startTestEnv(),
  ]);
  env = started;
  const tarball = packed.trim().split('\n').pop()!;
  await writeFile(
    path.join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', type: 'module', private: true, devDependencies: { typescript: TYPESCRIPT } }),
  );
  await writeFile(
    path.join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022', 'DOM'],
        strict: true,
        // As \`tsc --init\` sets: @trpc/server's own declarations need a newer lib (Disposable).
        skipLibCheck: true,
        outDir: 'out',
        types: [],
      },
      files: ['main.ts'],
    }),
  );
  // From the npm cache where it holds the packages' metadata (an `npm ci` caches tarballs only;
  // then the registry is asked for the metadata).
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${tarball}`], {
    cwd: consumer,
    env: npmEnv(),
    timeout: 120_000,
  });
}, 300_000);

afterAll(async () => {
  await env?.close();
  if (consumer) await rm(consumer, { recursive: true, force: true });
});

describe('the SDK package', () => {
  it('installs alone: its two dependencies, no server code, under 20 MB of node_modules', async () => {
    const installed = path.join(consumer, 'node_modules');
    const manifest = JSON.parse(await readFile(path.join(installed, '@llm-gateway/sdk/package.json'), 'utf8'));
    expect(manifest.version).toBe(VERSION);
    expect(Object.keys(manifest.dependencies)).toEqual(['@trpc/client', 'superjson']);
    const packages = (await readdir(installed)).filter((n) => !n.startsWith('.')).sort();
    expect(packages).toEqual(['@llm-gateway', '@trpc', 'copy-anything', 'superjson', 'typescript']);
    // The package: the bundle and its declarations, nothing of server/.
    const files = await readdir(path.join(installed, '@llm-gateway/sdk'), { recursive: true });
    expect(files.filter((f) => /(^|\/)server(\/|$)/.test(f))).toEqual([]);
    const declaration = await readFile(path.join(installed, '@llm-gateway/sdk/dist/types/sdk/app-router.d.ts'), 'utf8');
    expect(declaration).not.toMatch(/from '\.\.?\/(?!\.)/);
    // What the SDK brings: everything but the project's own TypeScript.
    const bytes = await sizeOf(installed, (rel) => rel === 'typescript' || rel === '.bin');
    expect(bytes).toBeLessThan(MAX_PACKAGE_BYTES);
  });

  it('type-checks against the package exports and runs', async () => {
    await writeFile(
      path.join(consumer, 'main.ts'),
      `import { createGatewayClient, gatewayErrorOf, VERSION, type RouterOutputs } from '@llm-gateway/sdk';
const gw = createGatewayClient({ baseUrl: process.argv[2]!, token: process.argv[3] });
const health: RouterOutputs['system']['health'] = await gw.system.health.query();
const tokens = await gw.tokens.list.query();
const names: string[] = tokens.items.map((t) => t.name);
const err = await gw.tokens.remove.mutate({ id: 'tok_missing' }).catch((e: unknown) => gatewayErrorOf(e));
const chat = await gw.chat.completions
  .create({
    model: 'openai/none',
    // As with OpenAI, an assistant turn that only calls tools leaves content out.
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '42' },
    ],
    seed: 7,
  })
  .then((a) => a._gateway.provider, (e: unknown) => gatewayErrorOf(e)?.type);
console.log(JSON.stringify({ status: health.status, version: health.version === VERSION, names, err, chat }));
declare const process: { argv: string[] };
`,
    );
    await run(process.execPath, [TSC(), '-p', consumer], { cwd: consumer });
    const tenant = await env.createTenant();
    const { stdout } = await run(process.execPath, [path.join(consumer, 'out', 'main.js'), env.baseUrl, tenant.token], {
      cwd: consumer,
    });
    const out = JSON.parse(stdout);
    expect(out.status).toBe('ok');
    expect(out.version).toBe(true);
    expect(out.names).toEqual(['admin']);
    expect(out.err).toMatchObject({ type: 'not_found_error', status: 404 });
    expect(out.chat).toBe('not_found_error');
  });

  it('rejects wrong use at compile time', async () => {
    await writeFile(
      path.join(consumer, 'main.ts'),
      `import { createGatewayClient } from '@llm-gateway/sdk';
const gw = createGatewayClient({ baseUrl: 'http://127.0.0.1:1' });
await gw.tokens.create.mutate({ name: 42 });
await gw.chat.completions.create({ messages: 'hi' });
await gw.chat.completions.create({ messages: [{ role: 'user', content: 'hi' }], temperature: 'hot' });
await gw.chat.completions.create({ messages: [{ role: 'user' }] });
await gw.tokens.list.mutate();
const status: 'ok' | 'degraded' | 'bad' = (await gw.system.health.query()).status;
const wrong: 'ok' = (await gw.system.health.query()).status;
`,
    );
    const failed = await run(process.execPath, [TSC(), '-p', consumer], { cwd: consumer }).then(
      () => '',
      (e: { stdout: string }) => e.stdout,
    );
    // One error per wrong line: the OpenAI fields of a chat body are typed, not unknown.
    expect(failed).toMatch(/main\.ts\(3,/);
    expect(failed).toMatch(/main\.ts\(4,/);
    expect(failed).toMatch(/main\.ts\(5,/);
    // Only an assistant message may leave content out.
    expect(failed).toMatch(/main\.ts\(6,/);
    // A query is not a mutation; an output is its literal union, neither wider nor narrower.
    expect(failed).toMatch(/main\.ts\(7,/);
    expect(failed).not.toMatch(/main\.ts\(8,/);
    expect(failed).toMatch(/main\.ts\(9,/);
  });
});
