#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx, so no build step is needed.
import { register } from 'tsx/esm/api';

register();
await import('../cli/index.ts');
