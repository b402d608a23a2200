import { setTimeout as sleep } from 'node:timers/promises';
import { closedLoop, keepAliveClient, keepAlivePool, streamOnce, target, once } from './lib/load.js';
import { cleanup, spawnNode, startDatabase } from './lib/processes.js';
import { cpuSecondsBetween, pinSelf, readCpuTicks, readMemory } from './lib/proc.js';
import { summarize } from './lib/stats.js';
import { request } from 'undici';

pinSelf(1);
const db = await startDatabase();
try {
  const sim = spawnNode('simulator', 'server/simulator/main.ts', { PORT: '0', HOST: '127.0.0.1' }, { core: 1 });
  const simUrl = (await sim.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  await request(`${simUrl}/_simulator/config`, { method: 'POST', body: JSON.stringify({ outputTokens: 20 }) }).then((r) => r.body.text());
  const gw = spawnNode('gateway', 'server/main.ts', { PORT: '0', HOST: '127.0.0.1', DATABASE_URL: db.url, GATEWAY_DATA_DIR: db.dir + '/gw', GATEWAY_ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef', GATEWAY_SIMULATOR: 'off', OPENAI_API_KEY: 'x', OPENAI_BASE_URL: `${simUrl}/openai/v1`, OLLAMA_BASE_URL: 'http://127.0.0.1:9/v1', ...(process.env.GWENV ? JSON.parse(process.env.GWENV) : {}) }, { core: 0 });
  const gwUrl = (await gw.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  await sleep(1000);
  let t0 = readCpuTicks(gw.pid);
  await sleep(5000);
  console.log('idle cpu %', (cpuSecondsBetween(t0, readCpuTicks(gw.pid)) / 5 * 100).toFixed(1), 'rss', readMemory(gw.pid));
  const auth = { authorization: 'Bearer bench-admin-token-0123456789abcdef' };
  const body = { messages: [{ role: 'user', content: 'hello there' }], temperature: 0.7 };
  const g = target('g', `${gwUrl}/v1/chat/completions`, auth, { model: 'openai/gpt-4o-mini', ...body });
  const d = target('d', `${simUrl}/openai/v1/chat/completions`, auth, { model: 'gpt-4o-mini', ...body });
  for (const conns of (process.env.CONNS ?? '128,64,16').split(',').map(Number)) {
    const pool = keepAlivePool(gwUrl, conns);
    await closedLoop(pool, g, conns, 3000);
    t0 = readCpuTicks(gw.pid);
    const r = await closedLoop(pool, g, conns, 5000);
    const cpu = cpuSecondsBetween(t0, readCpuTicks(gw.pid));
    console.log(`conns ${conns}: ${r.rps.toFixed(0)} rps, cpu/req ${(cpu * 1e6 / r.completed).toFixed(0)} us, util ${(cpu / r.seconds * 100).toFixed(0)}%`);
    await pool.close();
  }
  // TTFC standalone
  await request(`${simUrl}/_simulator/config`, { method: 'POST', body: JSON.stringify({ chunkDelayMs: 5 }) }).then((r) => r.body.text());
  const cd = keepAliveClient(simUrl), cg = keepAliveClient(gwUrl);
  const sd = JSON.stringify({ model: 'gpt-4o-mini', ...body, stream: true });
  const sg = JSON.stringify({ model: 'openai/gpt-4o-mini', ...body, stream: true });
  const rd = [], rg = [];
  for (let i = 0; i < 60; i++) { rd.push(await streamOnce(cd, d, sd)); }
  for (let i = 0; i < 60; i++) { rg.push(await streamOnce(cg, g, sg)); }
  console.log('ttfc direct', summarize(rd.slice(10).map((r) => r.firstChunkMs)));
  console.log('ttfc gw', summarize(rg.slice(10).map((r) => r.firstChunkMs)));
  await request(`${simUrl}/_simulator/config`, { method: 'POST', body: JSON.stringify({ chunkDelayMs: 0 }) }).then((r) => r.body.text());
  const c1 = keepAliveClient(simUrl);
  const xs = []; for (let i = 0; i < 500; i++) xs.push(await once(c1, d));
  console.log('direct nonstream seq', summarize(xs.slice(100)));
  t0 = readCpuTicks(gw.pid);
  await sleep(5000);
  console.log('idle cpu after load %', (cpuSecondsBetween(t0, readCpuTicks(gw.pid)) / 5 * 100).toFixed(1), readMemory(gw.pid));
} finally {
  await cleanup();
}
process.exit(0);
