import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { asyncContextFrameFlags } from './server/src/node-flags.ts';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Tests run the TypeScript sources directly; workspace packages resolve to their sources so no build is needed for unit
// and route tests. Browser tests use the built client and detector bundles (npm test builds first).
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@exb\/shared$/, replacement: here('./shared/src/index.ts') },
      // A module split into a folder keeps its import path, as the package's exports map it.
      { find: /^@exb\/shared\/exb-policy\.js$/, replacement: here('./shared/src/exb-policy/index.ts') },
      { find: /^@exb\/shared\/(.*)\.js$/, replacement: here('./shared/src/$1.ts') },
      { find: /^@exb\/migrations$/, replacement: here('./migrations/src/index.ts') },
      { find: /^@exb\/server$/, replacement: here('./server/src/app.ts') },
      { find: /^@exb\/server\/(.*)\.js$/, replacement: here('./server/src/$1.ts') },
    ],
  },
  test: {
    // The test workers run with production's async-context mode (`server/src/node-flags.ts`).
    execArgv: asyncContextFrameFlags(process.versions.node),
    globalSetup: [here('./test-support/global-setup.ts')],
    reporters: ['default', here('./test-support/summary-reporter.ts')],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'shared', include: ['shared/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'server', include: ['server/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'detector', include: ['detector/test/**/*.test.ts'] } },
      // The client's modules without React, in Node: the pages themselves are tested in Chromium (e2e).
      { extends: true, test: { name: 'client', include: ['client/test/**/*.test.ts'], environment: 'node' } },
      { extends: true, test: { name: 'e2e', include: ['e2e/test/**/*.test.ts'] } },
    ],
  },
});
