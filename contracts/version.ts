// The release version. The gateway, the SDK and the CLI ship together under one number; the
// package.json files of the three packages carry the same value (test/unit/contracts.test.ts).

export const VERSION = '0.1.0';
