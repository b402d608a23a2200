#!/usr/bin/env node
// In a checkout the TypeScript sources run through tsx (no build step); the installed package,
// which ships only the bundled dist/ file, runs that.
import { existsSync } from 'node:fs';

const sources = new URL('../bin.ts', import.meta.url);
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(sources.href);
} else {
  await import(new URL('../dist/gatewayctl.js', import.meta.url).href);
}
