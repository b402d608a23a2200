import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { startSimulator } from '../../server/simulator/index.js';
import { keepAliveClient } from './lib/load.js';
import { summarize } from './lib/stats.js';
const sim = await startSimulator({ chunkDelayMs: Number(process.env.DELAY ?? 5), outputTokens: 20 });
const c = keepAliveClient(sim.url);
const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: process.env.STREAM !== '0' });
const hdr: number[] = [], first: number[] = [];
for (let i = 0; i < 200; i++) {
  const t0 = performance.now();
  const res = await c.request({ path: '/openai/v1/chat/completions', method: 'POST', headers: { authorization: 'Bearer x', 'content-type': 'application/json' }, body });
  const t1 = performance.now();
  let f = NaN;
  await new Promise<void>((r) => { res.body.on('data', () => { if (Number.isNaN(f)) f = performance.now(); }); res.body.on('end', r); });
  if (i >= 20) { hdr.push(t1 - t0); first.push(f - t0); }
}
console.log('headers', summarize(hdr).p50.toFixed(3), 'first data', summarize(first).p50.toFixed(3), summarize(first).p99.toFixed(3));
await c.close(); await sim.close();
