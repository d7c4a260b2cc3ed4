import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { runSeed, thrownIn } from "../../src/fuzz/run/run-seed.js";
import { BUILTIN_SCENARIO_DIR, parseScenario, resolveScenario } from "../../src/scenario/loader.js";
import { thrownBy } from "./input-fuzz-helpers.js";

// Item 8 of "Trustworthy in CI and on long campaigns": a scenario that passes validation does not
// make every seed a model error, and a model error never shows JavaScript stack frames.

const GAP_SMALL = readFileSync(join(BUILTIN_SCENARIO_DIR, "kip-1228-gap-small.yaml"), "utf8");

describe("scenarios that would make every run a model error are refused", () => {
  it("partitionsPerTxn starting at 0 (a transaction on no partition): one line naming the field", () => {
    for (const range of ["[0, 0]", "[0, 2]"]) {
      const text = GAP_SMALL.replace(/partitionsPerTxn: \[\d+, \d+\]/, `partitionsPerTxn: ${range}`);
      expect(text).toContain(`partitionsPerTxn: ${range}`);
      const error = thrownBy(() => parseScenario(text, "mine.yaml"));
      expect((error as Error).message).toMatch(
        /^mine\.yaml:\d+:\d+ workload\.partitionsPerTxn: expected at least 1 partition per transaction \(.*\), found \[0, \d\]$/,
      );
    }
  });
});

describe("a model error in a report", () => {
  it("says where in the model it was thrown by function, with no stack frame", () => {
    const loaded = resolveScenario("kip-1228-gap-small");
    // Past validation (a scenario file naming a replica that is no broker is refused): the model
    // throws when the producer sends to that replica.
    const topics = loaded.scenario.cluster.topics.map((t) => ({ ...t, replicas: [["nobody"]] }));
    const cluster = { ...loaded.scenario.cluster, topics };
    const config = runConfigFor({ ...loaded, scenario: { ...loaded.scenario, cluster } });
    const result = runSeed(config, { seed: 0 });
    const error = result.violations.find((v) => v.kind === "model-error");
    expect(error).toBeDefined();
    const text = [error?.summary, ...(error?.explanation ?? [])].join("\n");
    expect(text).not.toMatch(/\bat .*:\d+:\d+/);
    expect(text).not.toMatch(/\.(js|ts):\d+/);
    expect(error?.explanation[0]).toMatch(/a bug of eosfuzz, not a finding about Kafka/);
    expect(error?.explanation.join("\n")).toMatch(/^thrown in \S+/m);
  });

  it("thrownIn keeps function names only, innermost first", () => {
    const stack = [
      "TypeError: x is undefined",
      "    at PartitionLog.append (/work/dist/kafka/broker/partition-log.js:10:5)",
      "    at PartitionLog.append (/work/dist/kafka/broker/partition-log.js:12:5)",
      "    at new KafkaBroker (/work/dist/kafka/broker/kafka-broker.js:3:1)",
      "    at /work/dist/anon.js:1:1",
      "    at async Simulation.run (/work/dist/sim/simulation.js:7:2)",
    ].join("\n");
    expect(thrownIn(stack)).toEqual(["PartitionLog.append", "KafkaBroker", "Simulation.run"]);
  });
});
