import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Tests that start real Kafka clusters run with npm run confirm:check (vitest.real.config.ts).
    // The long checks (*.long.test.ts) run with npm run test:long (vitest.long.config.ts); CI runs both.
    exclude: ["**/node_modules/**", "test/real-cluster/**", "test/**/*.long.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Vitest uses cores - 1 workers by default: one on the 2-core machines the suite must finish on in
    // about 6 minutes. Most files wait on child processes (the CLI, worker pools), so two overlap well.
    maxWorkers: 2,
  },
});
