import { defineConfig } from "vitest/config";

// npm run confirm:check: the tests that start real Kafka clusters (eosfuzz confirm), one file at a
// time: a cluster is four JVMs, and the machines have two cores.
export default defineConfig({
  test: {
    include: ["test/real-cluster/**/*.test.ts"],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 1,
    fileParallelism: false,
  },
});
