import { defineConfig } from "vitest/config";

// npm run test:long: the checks that take minutes each (the repository's whole `eosfuzz regress`, the
// README's claims run as the README words them, the package installed in a scratch project). CI
// runs them after npm test (.ci/run); npm test stays within about 6 minutes on 2 cores without them.
export default defineConfig({
  test: {
    include: ["test/**/*.long.test.ts"],
    exclude: ["**/node_modules/**", "test/real-cluster/**"],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
