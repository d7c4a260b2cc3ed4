import { defineConfig } from "vitest/config";

// npm run test:long: the checks that take minutes (the repository's whole `eosfuzz regress`, the
// README's claims run as the README words them, every mutant caught, the package installed in a
// scratch project, the search, seed-file, report-output and guide commands end to end, the CLI's
// small flaws, under real signals, full disks and fuzzed input, the HTML report in a browser). CI
// runs them after npm test (.ci/run); without them npm test takes about 6 minutes on 2 cores.
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
