import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's root folder (where package.json and migrations/ live), found by walking up from
 * this file, so the same code works from the sources (tsx) and from the compiled dist/ tree.
 */
export const PROJECT_ROOT: string = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) || !existsSync(path.join(dir, 'migrations'))) {
    const parent = path.dirname(dir);
    if (parent === dir)
      throw new Error('package root (package.json and migrations/) not found above the gateway sources');
    dir = parent;
  }
  return dir;
})();
