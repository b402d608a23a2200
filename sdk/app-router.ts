// The tRPC router's type, which the client is typed from. This is the SDK's one import of server
// code, type-only: the package's build (scripts/build-sdk.ts) replaces this file with a
// self-contained declaration generated from it, so the published SDK carries no server code and
// needs none of the server's dependencies (.dependency-cruiser.cjs allows this file alone).
export type { AppRouter } from '../server/trpc/router.js';
