import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../support/harness.js';

// The SDK as another TypeScript project sees it: the package is built, linked into a consumer
// project, type-checked there through the package's `exports`, and run against a real gateway.

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

let env: TestEnv;
let consumer: string;

beforeAll(async () => {
  await run('npm', ['run', 'build'], { cwd: ROOT, timeout: 120_000 });
  consumer = await mkdtemp(path.join(tmpdir(), 'gateway-sdk-consumer-'));
  await mkdir(path.join(consumer, 'node_modules'));
  await symlink(ROOT, path.join(consumer, 'node_modules', 'llm-gateway'), 'dir');
  await writeFile(
    path.join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', type: 'module', private: true }),
  );
  await writeFile(
    path.join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: true,
        outDir: 'out',
        types: [],
      },
    }),
  );
  env = await startTestEnv();
}, 180_000);

afterAll(async () => {
  await env?.close();
  if (consumer) await rm(consumer, { recursive: true, force: true });
});

describe('the SDK from another project', () => {
  it('type-checks against the package exports and runs', async () => {
    await writeFile(
      path.join(consumer, 'main.ts'),
      `import { createGatewayClient, gatewayErrorOf, type RouterOutputs } from 'llm-gateway';
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
console.log(JSON.stringify({ status: health.status, names, err, chat }));
declare const process: { argv: string[] };
`,
    );
    await run(process.execPath, [TSC, '-p', consumer], { cwd: consumer });
    const tenant = await env.createTenant();
    const { stdout } = await run(process.execPath, [path.join(consumer, 'out', 'main.js'), env.baseUrl, tenant.token], {
      cwd: consumer,
    });
    const out = JSON.parse(stdout);
    expect(out.status).toBe('ok');
    expect(out.names).toEqual(['admin']);
    expect(out.err).toMatchObject({ type: 'not_found_error', status: 404 });
    expect(out.chat).toBe('not_found_error');
  });

  it('rejects wrong use at compile time', async () => {
    await writeFile(
      path.join(consumer, 'main.ts'),
      `import { createGatewayClient } from 'llm-gateway';
const gw = createGatewayClient({ baseUrl: 'http://127.0.0.1:1' });
await gw.tokens.create.mutate({ name: 42 });
await gw.chat.completions.create({ messages: 'hi' });
await gw.chat.completions.create({ messages: [{ role: 'user', content: 'hi' }], temperature: 'hot' });
await gw.chat.completions.create({ messages: [{ role: 'user' }] });
`,
    );
    const failed = await run(process.execPath, [TSC, '-p', consumer], { cwd: consumer }).then(
      () => '',
      (e: { stdout: string }) => e.stdout,
    );
    // One error per wrong line: the OpenAI fields of a chat body are typed, not unknown.
    expect(failed).toMatch(/main\.ts\(3,/);
    expect(failed).toMatch(/main\.ts\(4,/);
    expect(failed).toMatch(/main\.ts\(5,/);
    // Only an assistant message may leave content out.
    expect(failed).toMatch(/main\.ts\(6,/);
  });
});
