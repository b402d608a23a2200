import { cp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';
import { appRouterDeclaration } from './app-router-dts.js';

// Builds the SDK package (sdk/dist): `npm run build -w sdk`, run by `npm pack -w sdk` (prepack).
//
// - dist/index.js: sdk/ and contracts/ bundled into one ES module; @trpc/client and superjson
//   stay imports (the package's dependencies), the small SSE parser is bundled in.
// - dist/types/: the declarations, from a copy of sdk/ and contracts/ in which sdk/app-router.ts
//   (in the repository a type-only re-export of the server's router) is the self-contained
//   declaration scripts/app-router-dts.ts writes. The copy is type-checked alone, with no
//   @types/node and nothing of the server, as an app that installs the package would see it.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SDK = path.join(ROOT, 'sdk');
const DIST = path.join(SDK, 'dist');
const STAGE = path.join(DIST, '.stage');
const EXTERNAL = ['@trpc/client', '@trpc/server', 'superjson'];

async function stage(): Promise<void> {
  await rm(DIST, { recursive: true, force: true });
  for (const dir of ['sdk', 'contracts']) {
    await mkdir(path.join(STAGE, dir), { recursive: true });
    for (const name of await readdir(path.join(ROOT, dir)))
      if (name.endsWith('.ts')) await cp(path.join(ROOT, dir, name), path.join(STAGE, dir, name));
  }
  await writeFile(path.join(STAGE, 'sdk', 'app-router.ts'), appRouterDeclaration(ROOT));
}

function declarations(): void {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    // What fetch, Response and AbortSignal need, without @types/node.
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: STAGE,
    outDir: path.join(DIST, 'types'),
    // The staged copy resolves packages from the repository's node_modules, as sdk/ does.
    baseUrl: ROOT,
    typeRoots: [],
  };
  const files = ['sdk', 'contracts'].flatMap((dir) =>
    ts.sys.readDirectory(path.join(STAGE, dir), ['.ts']).filter((f) => !f.endsWith('.d.ts')),
  );
  const program = ts.createProgram(files, options);
  const result = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (diagnostics.length > 0) {
    const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' };
    throw new Error(`the SDK's declarations do not type-check:\n${ts.formatDiagnostics(diagnostics, host)}`);
  }
}

async function bundle(): Promise<void> {
  await build({
    entryPoints: [path.join(STAGE, 'sdk', 'index.ts')],
    outfile: path.join(DIST, 'index.js'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    sourcemap: true,
    legalComments: 'inline',
    logLevel: 'warning',
  });
}

await stage();
declarations();
await bundle();
await rm(STAGE, { recursive: true, force: true });
