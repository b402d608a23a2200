import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

// Builds the CLI package (cli/dist/gatewayctl.js): `npm run build -w cli`, run by `npm pack -w cli`.
//
// cli/ and the contracts it uses are bundled into one executable ES module. In the repository the
// CLI imports the SDK's sources (../sdk/index.js, its public entry only: .dependency-cruiser.cjs);
// in the package that import is the @llm-gateway/sdk dependency, as are commander and cli-table3.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = path.join(ROOT, 'cli');
const SDK_ENTRY = path.join(ROOT, 'sdk', 'index.ts');
const SDK_PACKAGE = '@llm-gateway/sdk';

/** The SDK's entry becomes the SDK package; any other file of sdk/ is refused. */
const sdkAsPackage: Plugin = {
  name: 'sdk-as-package',
  setup(b) {
    b.onResolve({ filter: /\/sdk\// }, (args) => {
      const target = path.resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts');
      if (target === SDK_ENTRY) return { path: SDK_PACKAGE, external: true };
      if (target.startsWith(path.join(ROOT, 'sdk') + path.sep))
        return { errors: [{ text: `${args.importer} imports ${args.path}: the CLI may only use the SDK's entry` }] };
      return undefined;
    });
  },
};

await rm(path.join(CLI, 'dist'), { recursive: true, force: true });
await build({
  entryPoints: [path.join(CLI, 'bin.ts')],
  outfile: path.join(CLI, 'dist', 'gatewayctl.js'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['commander', 'cli-table3'],
  plugins: [sdkAsPackage],
  legalComments: 'inline',
  logLevel: 'warning',
});
