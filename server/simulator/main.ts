// Standalone simulator: `tsx server/simulator/main.ts`. PORT (default 9090) and HOST (default
// 127.0.0.1) from the environment; control it at runtime through POST /_simulator/config.
import { startSimulator } from './index.js';

const port = process.env.PORT ? Number(process.env.PORT) : 9090;
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`Invalid PORT: ${process.env.PORT}\n`);
  process.exit(1);
}

const sim = await startSimulator({ port, host: process.env.HOST || '127.0.0.1' });
process.stdout.write(
  `Upstream simulator listening on ${sim.url}\n` +
    `  openai:    ${sim.baseUrls.openai}\n` +
    `  anthropic: ${sim.baseUrls.anthropic}\n` +
    `  gemini:    ${sim.baseUrls.gemini}\n`,
);

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  sim.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
