#!/usr/bin/env node
// In a checkout the TypeScript sources run through tsx (no build step); an installed package,
// which ships only the compiled dist/ tree, runs that.
import { existsSync } from 'node:fs';

const sources = new URL('../cli/bin.ts', import.meta.url);
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(sources.href);
} else {
  await import(new URL('../dist/cli/bin.js', import.meta.url).href);
}
