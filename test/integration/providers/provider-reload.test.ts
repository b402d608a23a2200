import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../server/simulator/index.js';
import { startTestEnv, type TestEnv, type TestTenant } from '../../support/harness.js';

// POST /v1/providers/reload with keys edited in GATEWAY_ENV_FILE: a first start on the built-in
// simulator keeps serving while the new providers are discovered, and a provider whose key changed
// starts with a closed circuit.

let dir: string;
let envFile: string;
let upstream: Simulator;
let env: TestEnv;
let tenant: TestTenant;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'gw-reload-'));
  envFile = path.join(dir, 'providers.env');
  writeFileSync(envFile, '');
  upstream = await startSimulator({ seed: 3 });
  // No credential: the built-in simulator serves, as on a first `npm start`.
  // Single mode: in multi mode the deployment's providers are reloaded by the operator (SIGHUP).
  env = await startTestEnv({ env: { GATEWAY_MODE: 'single', GATEWAY_SIMULATOR: 'auto', GATEWAY_ENV_FILE: envFile } });
  tenant = await env.createTenant();
});
afterAll(async () => {
  await env.close();
  await upstream.close();
  rmSync(dir, { recursive: true, force: true });
});

const chat = (model: string) =>
  env.http('POST', '/v1/chat/completions', {
    token: tenant.token,
    body: { model, messages: [{ role: 'user', content: `reload ${Math.random()}` }] },
  });
const reload = () => env.http('POST', '/v1/providers/reload', { token: tenant.token, body: {} });

describe('reload', () => {
  it('keeps serving from the built-in simulator until the providers a new key brings are discovered', async () => {
    // With no key the simulator stands in for openai, anthropic and gemini under their names.
    const first = await chat('gpt-4o-mini');
    expect(first.body._gateway).toMatchObject({ provider: 'openai', simulated: true });
    const listed = await env.http('GET', '/v1/providers', { token: tenant.token });
    const simulated = listed.body.items.filter((p: { simulated: boolean }) => p.simulated);
    expect(simulated.map((p: { name: string }) => p.name).sort()).toEqual(['anthropic', 'gemini', 'openai']);
    expect(simulated.every((p: { source: string }) => p.source === 'simulator')).toBe(true);
    writeFileSync(envFile, `OPENAI_API_KEY=sk-first\nOPENAI_BASE_URL=${upstream.baseUrls.openai}\n`);
    // Discovery of the new provider takes a while: calls meanwhile still go to the simulator.
    upstream.setFaults([{ endpoint: 'models', latencyMs: 800, times: 1 }]);
    const reloaded = reload();
    await new Promise((r) => setTimeout(r, 200));
    const during = await chat('gpt-4o-mini');
    expect(during.status).toBe(200);
    expect(during.body._gateway).toMatchObject({ provider: 'openai', simulated: true });
    expect((await reloaded).status).toBe(200);
    // A real key: the simulator no longer answers in any provider's name.
    const after = await chat('gpt-4o-mini');
    expect(after.body._gateway.provider).toBe('openai');
    expect(after.body._gateway).not.toHaveProperty('simulated');
    const names = (await env.http('GET', '/v1/providers', { token: tenant.token })).body.items;
    expect(names.filter((p: { simulated: boolean }) => p.simulated)).toEqual([]);
    expect(names.map((p: { name: string }) => p.name)).not.toContain('anthropic');
  });

  it('does not replay an answer the simulator gave once the real provider of that name is in place', async () => {
    writeFileSync(envFile, '');
    expect((await reload()).status).toBe(200);
    const body = { model: 'openai/gpt-4o-mini', temperature: 0, messages: [{ role: 'user', content: 'cached?' }] };
    const simulated = await env.http('POST', '/v1/chat/completions', { token: tenant.token, body });
    expect(simulated.body._gateway).toMatchObject({ provider: 'openai', simulated: true, cached: false });
    writeFileSync(envFile, `OPENAI_API_KEY=sk-first\nOPENAI_BASE_URL=${upstream.baseUrls.openai}\n`);
    expect((await reload()).status).toBe(200);
    const real = await env.http('POST', '/v1/chat/completions', { token: tenant.token, body });
    expect(real.body._gateway).toMatchObject({ provider: 'openai', cached: false });
    expect(real.body._gateway).not.toHaveProperty('simulated');
  });

  it('closes the circuit of a provider whose key changed, and only of that one', async () => {
    const { breakers } = env.services.dataPlane;
    for (let i = 0; i < 5; i++) {
      breakers.failure('openai');
      breakers.failure('ollama');
    }
    expect(breakers.state('openai')).toBe('open');
    writeFileSync(envFile, `OPENAI_API_KEY=sk-second\nOPENAI_BASE_URL=${upstream.baseUrls.openai}\n`);
    expect((await reload()).status).toBe(200);
    expect(breakers.state('openai')).toBe('closed');
    // Nothing changed for the local server: what its failures said still holds.
    expect(breakers.state('ollama')).toBe('open');
    const served = await chat('openai/gpt-4o-mini');
    expect(served.body._gateway).toMatchObject({ provider: 'openai', routing: { usedFallback: false } });
  });
});

describe('a provider a reload removes', () => {
  it('has its circuit forgotten: nothing could close it, and /metrics reported it open for good', async () => {
    const { breakers } = env.services.dataPlane;
    const openai = `OPENAI_API_KEY=sk-second\nOPENAI_BASE_URL=${upstream.baseUrls.openai}\n`;
    writeFileSync(envFile, `${openai}MISTRAL_API_KEY=mk-1\nMISTRAL_BASE_URL=${upstream.baseUrls.openai}\n`);
    expect((await reload()).status).toBe(200);
    for (let i = 0; i < 5; i++) breakers.failure('mistral');
    expect(breakers.state('mistral')).toBe('open');
    const open = 'gateway_provider_breaker_state{provider="mistral",state="open"} 1';
    expect((await env.http('GET', '/metrics')).body).toContain(open);

    writeFileSync(envFile, openai);
    expect((await reload()).status).toBe(200);
    expect(breakers.snapshot()).not.toHaveProperty('mistral');
    // Its state is gone; the count of its openings, a counter, stays (it no longer grows).
    expect((await env.http('GET', '/metrics')).body).not.toContain('gateway_provider_breaker_state{provider="mistral"');
  });
});

describe('reload on several nodes', () => {
  it('is done by every node when asked of one: the others re-read their own settings and agree', async () => {
    const other = await env.addNode();
    const providersOn = async (baseUrl: string) => {
      const res = await fetch(`${baseUrl}/v1/providers`, { headers: { authorization: `Bearer ${tenant.token}` } });
      return ((await res.json()) as { items: Array<{ name: string }> }).items.map((p) => p.name);
    };
    expect(await providersOn(other.baseUrl)).not.toContain('groq');
    writeFileSync(
      envFile,
      `OPENAI_API_KEY=sk-second\nOPENAI_BASE_URL=${upstream.baseUrls.openai}\nGROQ_API_KEY=gsk-new\nGROQ_BASE_URL=${upstream.baseUrls.openai}\n`,
    );
    expect((await reload()).status).toBe(200);
    expect(await providersOn(env.baseUrl)).toContain('groq');
    const deadline = Date.now() + 5_000;
    while (!(await providersOn(other.baseUrl)).includes('groq') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(await providersOn(other.baseUrl)).toContain('groq');
    const pinned = await fetch(`${other.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'groq/gpt-4o-mini', messages: [{ role: 'user', content: 'on the other node' }] }),
    });
    expect(pinned.status).toBe(200);
  });
});
