// The import rules (docs/packages-and-boundaries.md), checked by `npm run lint` and so by .ci/run
// (scripts/check-imports.ts: dependency-cruiser over server, contracts, sdk, cli, test, scripts).
//
// Layers: contracts/ (the wire types) imports nothing of ours; sdk/ and cli/ import contracts/
// and never server/ (the CLI uses the SDK through its entry only); in server/, the data-plane core
// (gateway/, providers/) never imports the control plane (modules/, trpc/, http/) or the
// simulator, and a module reaches another module's table only through that module's service.
//
// KNOWN VIOLATIONS, to be removed: each exception below names its rule and the import it lets
// through (a cycle: the import that closes it). Delete an exception once the code it covers is
// fixed; the check then holds the line. Do not add to them: fix the import instead.

/**
 * Each known violation: the rule, the importing file and the imported file (regular expressions on
 * paths relative to the repository), or for a cycle a file it passes through, and why it is still
 * there.
 */
const KNOWN = [
  // The spend service imports the tRPC layer (server/trpc/procedures.ts), which reaches the
  // services container and so the spend service again. The service should take what it needs as
  // a value or type of its own module. (A cycle is let through by a file it passes through.)
  { rule: 'no-circular', through: '^server/modules/spend/service[.]ts$' },
  // Auto-A/B reads the feedback table through the feedback module's repository, and the tenants
  // service the tokens table through the tokens module's: each should go through that module's
  // service (one owner per table).
  {
    rule: 'modules-own-their-tables',
    from: '^server/modules/(ab-tests)/auto-ab[.]ts$',
    to: '^server/modules/feedback/repository[.]ts$',
  },
  {
    rule: 'modules-own-their-tables',
    from: '^server/modules/(tenants)/service[.]ts$',
    to: '^server/modules/tokens/repository[.]ts$',
  },
  // The live bus takes the tokens' change channel name from the tokens module's repository (it
  // belongs in the core or db/ beside the listener).
  {
    rule: 'core-not-control-plane',
    from: '^server/gateway/live-bus[.]ts$',
    to: '^server/modules/tokens/repository[.]ts$',
  },
];

const either = (...patterns) => patterns.filter(Boolean).join('|') || undefined;

/**
 * A rule with its known violations let through edge by edge: the rule as written for every other
 * importing file, and for each file with a known violation the rule less that import.
 */
function withKnown(rule) {
  // Cycles are reported from any file on them: a known one is let through by a file it passes through.
  const through = KNOWN.filter((k) => k.rule === rule.name && k.through).map((k) => k.through);
  if (through.length > 0) return [{ ...rule, to: { ...rule.to, viaOnly: { pathNot: either(...through) } } }];
  const known = KNOWN.filter((k) => k.rule === rule.name);
  const froms = [...new Set(known.map((k) => k.from))];
  return [
    { ...rule, from: { ...rule.from, pathNot: either(rule.from.pathNot, ...froms) } },
    ...froms.map((from) => ({
      ...rule,
      from: { ...rule.from, path: from },
      to: { ...rule.to, pathNot: either(rule.to.pathNot, ...known.filter((k) => k.from === from).map((k) => k.to)) },
    })),
  ];
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles between source files: a cycle makes start-up order and refactoring fragile.',
      from: { path: '^(server|contracts|sdk|cli|test|scripts)/' },
      to: { circular: true },
    },
    {
      name: 'core-not-control-plane',
      severity: 'error',
      comment:
        'The data-plane core (server/gateway, server/providers) is driven by the HTTP layer, jobs and evals alike: it never imports a control-plane module, the tRPC or HTTP layers, or the simulator (which the services wire in).',
      from: { path: '^server/(gateway|providers)/' },
      to: { path: '^server/(modules|trpc|http|simulator)/' },
    },
    {
      name: 'lib-imports-nothing-of-ours',
      severity: 'error',
      comment:
        'server/lib/ holds the small helpers every layer uses: it imports nothing of the project but its own files and contracts/.',
      from: { path: '^server/lib/' },
      to: { path: '^(server/(?!lib/)|sdk/|cli/|test/|scripts/)' },
    },
    {
      name: 'contracts-import-nothing-of-ours',
      severity: 'error',
      comment: 'contracts/ holds the wire types the server, the SDK and the CLI share: it depends on none of them.',
      from: { path: '^contracts/' },
      to: { path: '^(server|sdk|cli|test|scripts)/' },
    },
    {
      name: 'sdk-not-server',
      severity: 'error',
      comment:
        'The SDK is a package of its own: it imports contracts/ and its dependencies, never the server. The one exception is the type-only re-export of the tRPC router in sdk/app-router.ts, which the package build replaces with a generated self-contained declaration (scripts/app-router-dts.ts).',
      from: { path: '^sdk/', pathNot: '^sdk/app-router[.]ts$' },
      to: { path: '^(server|cli|test|scripts)/' },
    },
    {
      name: 'sdk-app-router-type-only',
      severity: 'error',
      comment: 'sdk/app-router.ts may only re-export the router type: nothing of the server runs in the SDK.',
      from: { path: '^sdk/app-router[.]ts$' },
      to: { path: '^server/', pathNot: '^server/trpc/router[.]ts$' },
    },
    {
      name: 'sdk-app-router-no-runtime',
      severity: 'error',
      comment: 'sdk/app-router.ts imports the router as a type only.',
      from: { path: '^sdk/app-router[.]ts$' },
      to: { path: '^server/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'cli-not-server',
      severity: 'error',
      comment:
        'The CLI is a package of its own that talks to the gateway only through the SDK: it never imports the server.',
      from: { path: '^cli/' },
      to: { path: '^(server|test|scripts)/' },
    },
    {
      name: 'cli-through-sdk-entry',
      severity: 'error',
      comment:
        'The CLI package depends on the SDK package, whose only entry is sdk/index.ts (the build maps that import to @llm-gateway/sdk).',
      from: { path: '^cli/' },
      to: { path: '^sdk/', pathNot: '^sdk/index[.]ts$' },
    },
    {
      name: 'modules-own-their-tables',
      severity: 'error',
      comment:
        "A module's repository is its own: another module goes through that module's service (one owner per table).",
      from: { path: '^server/modules/([^/]+)/' },
      to: { path: '^server/modules/([^/]+)/repository[.]ts$', pathNot: '^server/modules/$1/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that does not resolve to a file or an installed package.',
      from: {},
      to: { couldNotResolve: true },
    },
  ]
    .flatMap(withKnown)
    // (a pathNot left undefined is dropped)
    .map((rule) => JSON.parse(JSON.stringify(rule))),
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
