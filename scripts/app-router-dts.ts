import path from 'node:path';
import ts from 'typescript';

// The published SDK's declaration of the tRPC router, generated from the server's AppRouter.
//
// The client is typed from `AppRouter` (server/trpc/router.ts), a type that reaches into the whole
// server: the request context (express, pg, the services), zod schemas, the OpenAPI meta. The
// package cannot ship those. What a client needs is only each procedure's kind, input and output
// and the error shape, so this walks the router with the type checker and writes those out as
// plain structural types (objects, unions, literals, arrays, Date) on tRPC's own router and
// procedure types: a self-contained file that imports nothing but '@trpc/server' types.
//
// A type the walk cannot write as plain data (a function, a class instance other than Date) fails
// the build rather than being weakened. test/integration/sdk/sdk-package.test.ts checks that the
// result gives the same inputs and outputs as the server's router.

const ROUTER_FILE = 'server/trpc/router.ts';

export function appRouterDeclaration(root: string): string {
  const file = path.join(root, ROUTER_FILE);
  const config = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
  const options = { ...ts.parseJsonConfigFileContent(config.config, ts.sys, root).options, noEmit: true };
  const program = ts.createProgram([file], options);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`${ROUTER_FILE} not found`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  const exported = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === 'AppRouter');
  if (!exported) throw new Error(`${ROUTER_FILE} exports no AppRouter`);
  const declaration = new Writer(program, checker).declaration(checker.getDeclaredTypeOfSymbol(exported));
  verify(root, options, program, declaration);
  return declaration;
}

/**
 * Checks the declaration against the server's router, both ways: the client each one types (every
 * procedure's kind, input and output) and their inputs and outputs must be assignable to the
 * other's. Reuses the program that wrote it, so this costs little more than checking one file.
 */
function verify(root: string, options: ts.CompilerOptions, old: ts.Program, declaration: string): void {
  const generated = path.join(root, 'sdk', '__generated-app-router.ts');
  const check = path.join(root, 'sdk', '__check-app-router.ts');
  const virtual = new Map([
    [generated, declaration],
    [
      check,
      `import type { inferRouterClient } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter as Generated } from './__generated-app-router.js';
import type { AppRouter as Server } from '../server/trpc/router.js';
declare const server: { client: inferRouterClient<Server>; inputs: inferRouterInputs<Server>; outputs: inferRouterOutputs<Server> };
declare const generated: { client: inferRouterClient<Generated>; inputs: inferRouterInputs<Generated>; outputs: inferRouterOutputs<Generated> };
export const generatedInputs: inferRouterInputs<Generated> = server.inputs;
export const serverInputs: inferRouterInputs<Server> = generated.inputs;
export const generatedOutputs: inferRouterOutputs<Generated> = server.outputs;
export const serverOutputs: inferRouterOutputs<Server> = generated.outputs;
export const generatedClient: inferRouterClient<Generated> = server.client;
export const serverClient: inferRouterClient<Server> = generated.client;
`,
    ],
  ]);
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => {
    const text = virtual.get(path.resolve(name));
    return text !== undefined ? ts.createSourceFile(name, text, language) : getSourceFile(name, language, ...rest);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => virtual.has(path.resolve(name)) || fileExists(name);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => virtual.get(path.resolve(name)) ?? readFile(name);
  const program = ts.createProgram({ rootNames: [...old.getRootFileNames(), check], options, host, oldProgram: old });
  const diagnostics = [
    ...program.getSemanticDiagnostics(program.getSourceFile(check)),
    ...program.getSemanticDiagnostics(program.getSourceFile(generated)),
  ];
  if (diagnostics.length === 0) return;
  const format = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
  throw new Error(`the generated AppRouter differs from the server's:\n${ts.formatDiagnostics(diagnostics, format)}`);
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

class Writer {
  /** Types being written (to find recursion), and the alias a recursive one is written under. */
  private readonly open = new Map<ts.Type, string | undefined>();
  private readonly aliases: string[] = [];
  private path: string[] = [];

  constructor(
    private readonly program: ts.Program,
    private readonly checker: ts.TypeChecker,
  ) {}

  declaration(router: ts.Type): string {
    const def = this.prop(router, '_def');
    const errorShape = this.write(this.prop(this.prop(this.prop(def, '_config'), '$types'), 'errorShape'), 2);
    const record = this.record(this.prop(def, 'record'), 1);
    return [
      '// Generated from server/trpc/router.ts by scripts/app-router-dts.ts when the SDK is built: do not edit.',
      "import type { TRPCBuiltRouter, TRPCMutationProcedure, TRPCQueryProcedure, TRPCSubscriptionProcedure } from '@trpc/server';",
      '',
      ...this.aliases,
      `type Root = {\n  ctx: object;\n  meta: object;\n  errorShape: ${errorShape};\n  transformer: true;\n};`,
      '',
      "/** The gateway's tRPC router as a client sees it: each procedure's input and output. */",
      `export type AppRouter = TRPCBuiltRouter<Root, ${record}>;`,
      '',
    ].join('\n');
  }

  private prop(type: ts.Type, name: string): ts.Type {
    const symbol = type.getProperty(name);
    if (!symbol) throw new Error(`${this.where()}: no property ${name} on ${this.checker.typeToString(type)}`);
    return this.checker.getTypeOfSymbol(symbol);
  }

  private where(): string {
    return this.path.join('.') || '(router)';
  }

  /** A router's record: procedures and nested records, by name. */
  private record(type: ts.Type, depth: number): string {
    const pad = '  '.repeat(depth);
    const entries = type.getProperties().map((symbol) => {
      this.path.push(symbol.name);
      const value = this.checker.getTypeOfSymbol(symbol);
      const def = value.getProperty('_def') && this.prop(value, '_def');
      let text: string;
      if (def?.getProperty('procedure')) text = this.procedure(def, depth + 1);
      else if (def?.getProperty('record')) text = this.record(this.prop(def, 'record'), depth + 1);
      else text = this.record(value, depth + 1);
      this.path.pop();
      return `${pad}${key(symbol.name)}: ${text};`;
    });
    return `{\n${entries.join('\n')}\n${'  '.repeat(depth - 1)}}`;
  }

  private procedure(def: ts.Type, depth: number): string {
    const kind = this.prop(def, 'type');
    const name = kind.isStringLiteral() ? kind.value : '';
    const wrapper = {
      query: 'TRPCQueryProcedure',
      mutation: 'TRPCMutationProcedure',
      subscription: 'TRPCSubscriptionProcedure',
    }[name];
    if (!wrapper) throw new Error(`${this.where()}: unknown procedure type ${this.checker.typeToString(kind)}`);
    const types = this.prop(def, '$types');
    const pad = '  '.repeat(depth);
    return `${wrapper}<{\n${pad}input: ${this.write(this.prop(types, 'input'), depth + 1)};\n${pad}output: ${this.write(this.prop(types, 'output'), depth + 1)};\n${pad}meta: object;\n${'  '.repeat(depth - 1)}}>`;
  }

  /** A type as plain structural TypeScript. */
  private write(type: ts.Type, depth: number): string {
    const f = type.flags;
    const { checker } = this;
    if (f & ts.TypeFlags.Any) return 'any';
    if (f & ts.TypeFlags.Unknown) return 'unknown';
    if (f & ts.TypeFlags.Never) return 'never';
    if (f & ts.TypeFlags.Void) return 'void';
    if (f & ts.TypeFlags.Undefined) return 'undefined';
    if (f & ts.TypeFlags.Null) return 'null';
    if (f & ts.TypeFlags.String) return 'string';
    if (f & ts.TypeFlags.Number) return 'number';
    if (f & ts.TypeFlags.BigInt) return 'bigint';
    if (f & ts.TypeFlags.Boolean) return 'boolean';
    if (f & ts.TypeFlags.ESSymbol) return 'symbol';
    if (type.isStringLiteral()) return JSON.stringify(type.value);
    if (type.isNumberLiteral()) return String(type.value);
    if (f & (ts.TypeFlags.BooleanLiteral | ts.TypeFlags.BigIntLiteral | ts.TypeFlags.TemplateLiteral))
      return checker.typeToString(type);
    if (type.isUnion()) return this.union(type.types, depth);
    if (type.isIntersection())
      return type.types.map((t) => (t.isUnion() ? `(${this.write(t, depth)})` : this.write(t, depth))).join(' & ');
    if (f & ts.TypeFlags.NonPrimitive) return 'object';
    if (f & ts.TypeFlags.Object) return this.object(type as ts.ObjectType, depth);
    throw new Error(`${this.where()}: cannot write ${checker.typeToString(type)} as plain data`);
  }

  private union(types: readonly ts.Type[], depth: number): string {
    const parts: string[] = [];
    let booleans = 0;
    for (const t of types) {
      if (t.flags & ts.TypeFlags.BooleanLiteral) booleans++;
      else parts.push(this.write(t, depth));
    }
    // `boolean` is the union true | false to the checker.
    if (booleans === 2) parts.push('boolean');
    else if (booleans === 1)
      parts.push(
        ...types.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral).map((t) => this.checker.typeToString(t)),
      );
    return parts.map((p) => (p.includes('=>') ? `(${p})` : p)).join(' | ');
  }

  private object(type: ts.ObjectType, depth: number): string {
    const { checker } = this;
    if (checker.isArrayType(type)) {
      const [element] = checker.getTypeArguments(type as ts.TypeReference);
      const readonly = type.symbol?.name === 'ReadonlyArray';
      return `${readonly ? 'ReadonlyArray' : 'Array'}<${this.write(element!, depth)}>`;
    }
    if (checker.isTupleType(type)) {
      const target = (type as ts.TypeReference).target as ts.TupleType;
      const elements = checker.getTypeArguments(type as ts.TypeReference).map((t, i) => {
        const flags = target.elementFlags[i] ?? ts.ElementFlags.Required;
        const text = this.write(t, depth);
        if (flags & ts.ElementFlags.Rest) return `...Array<${text}>`;
        return flags & ts.ElementFlags.Optional ? `${text}?` : text;
      });
      return `${target.readonly ? 'readonly ' : ''}[${elements.join(', ')}]`;
    }
    if (type.symbol?.name === 'Date' && this.fromDefaultLibrary(type.symbol)) return 'Date';
    if (checker.getSignaturesOfType(type, ts.SignatureKind.Call).length > 0 || this.isClassInstance(type))
      throw new Error(`${this.where()}: cannot write ${checker.typeToString(type)} as plain data`);

    if (this.open.has(type)) {
      // Recursive: written once under an alias that refers to itself.
      let alias = this.open.get(type);
      if (!alias) this.open.set(type, (alias = `Recursive${this.aliases.length + 1}`));
      return alias;
    }
    this.open.set(type, undefined);
    const pad = '  '.repeat(depth);
    const members: string[] = [];
    for (const info of checker.getIndexInfosOfType(type))
      members.push(`${pad}[key: ${this.write(info.keyType, depth + 1)}]: ${this.write(info.type, depth + 1)};`);
    for (const symbol of checker.getPropertiesOfType(type)) {
      this.path.push(symbol.name);
      const docs = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
      if (docs) members.push(`${pad}/** ${docs.replace(/\*\//g, '*\\/').replace(/\n/g, `\n${pad} * `)} */`);
      const optional = symbol.flags & ts.SymbolFlags.Optional ? '?' : '';
      members.push(`${pad}${key(symbol.name)}${optional}: ${this.write(checker.getTypeOfSymbol(symbol), depth + 1)};`);
      this.path.pop();
    }
    const alias = this.open.get(type);
    this.open.delete(type);
    const text = members.length === 0 ? '{}' : `{\n${members.join('\n')}\n${'  '.repeat(depth - 1)}}`;
    if (!alias) return text;
    this.aliases.push(`type ${alias} = ${text.replace(/\n {2}/g, '\n  ')};`, '');
    return alias;
  }

  private fromDefaultLibrary(symbol: ts.Symbol): boolean {
    return (symbol.declarations ?? []).every((d) => this.program.isSourceFileDefaultLibrary(d.getSourceFile()));
  }

  /** An instance of a class (a Map, a Buffer, one of ours): not plain data a client receives. */
  private isClassInstance(type: ts.ObjectType): boolean {
    const symbol = type.symbol;
    if (!symbol || !(symbol.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface))) return false;
    // Interfaces of our own (a wire type like ChatCompletion) are plain data; lib ones (Map, Set,
    // Uint8Array) are not.
    if (symbol.flags & ts.SymbolFlags.Class) return true;
    return (
      this.fromDefaultLibrary(symbol) || (symbol.declarations ?? []).some((d) => d.getSourceFile().isDeclarationFile)
    );
  }
}

function key(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}
