import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: more parallel files only contend for CPU with the embedded Postgres.
    maxWorkers: 2,
    // Each worker process runs its files one after the other on one module graph: a fresh process
    // and a fresh import of the server per file cost about as much as the tests themselves (the
    // unit tests took 43 s so, 8 s not). A test file leaves nothing behind that another could see:
    // every gateway it starts has its own services, pools and caches, closed in its afterAll.
    isolate: false,
  },
});
