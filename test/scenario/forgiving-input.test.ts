import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scenarioArgument } from "../../src/fuzz/search/replay-commands.js";
import { closestNames } from "../../src/scenario/did-you-mean.js";
import { type InputError, problemsOf } from "../../src/common/input-error.js";
import { parseScenario, resolveScenario } from "../../src/scenario/loader.js";
import { applySettings, parseSettings } from "../../src/scenario/settings.js";
import { eosfuzz, ROOT } from "../cli/cli-helpers.js";

// Inputs that forgive typos (issue 30, item 5): did-you-mean for keys, values, scenario names and
// strategies; Kafka's dotted property names where a field models one; --set path=value.

const GOOD = `name: mine
cluster:
  brokers:
    - { id: broker-0, release: "4.2.1" }
    - { id: broker-1, release: "4.2.1" }
  topics:
    - { name: orders, partitions: 2, replicationFactor: 2, minInsyncReplicas: 2 }
workload:
  producers: 2
  transactions: 3
  transactionTimeoutMs: 500
seeds: 2
`;

function problems(text: string): string[] {
  try {
    parseScenario(text, "s.yaml");
  } catch (e) {
    return problemsOf(e as InputError).map((p) => p.message);
  }
  return [];
}

function thrown(work: () => unknown): string {
  try {
    work();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("expected it to throw");
}

describe("did you mean", () => {
  it("a typed key: each unknown key its own line with the field it is close to", () => {
    const lines = problems(
      GOOD.replace("  transactions: 3", "  transactons: 3").replace("producers: 2", "producer: 2"),
    );
    expect(lines).toEqual([
      expect.stringMatching(
        /^s\.yaml:9:3 workload\.producer: unknown field "producer" \(did you mean "producers"\?\)$/,
      ),
      expect.stringMatching(
        /^s\.yaml:10:3 workload\.transactons: unknown field "transactons" \(did you mean "transactions"\?\)$/,
      ),
    ]);
  });

  it("a key nothing is close to lists the map's fields whole, or names where they are", () => {
    const [short] = problems(GOOD.replace("seeds: 2", "seeds: 2\nbounds: { zzz: 1 }"));
    expect(short).toMatch(
      /bounds\.zzz: unknown field "zzz" \(expected one of maxEvents, workloadDeadlineMs, quietPeriodMs\)$/,
    );
    const [long] = problems(GOOD.replace("  transactions: 3", "  zzz: 3"));
    expect(long).toMatch(/unknown field "zzz" \(expected one of the \d+ fields of workload, in docs\/scenarios\.md\)$/);
    expect(long).not.toMatch(/\.\.\./);
  });

  it("a typed value of a closed set", () => {
    const [model] = problems(`${GOOD}faults:\n  network: { model: adversarail }\n`);
    expect(model).toMatch(/found "adversarail" \(did you mean "adversarial"\?\)$/);
    const [release] = problems(
      GOOD.replace('release: "4.2.1" }\n    - { id: broker-1', 'release: "4.2" }\n    - { id: broker-1'),
    );
    expect(release).toMatch(/found "4\.2" \(did you mean "4\.2\.0", "4\.2\.1"/);
  });

  it("a scenario name: what was typed, the close names, never a list cut short", () => {
    const typo = thrown(() => resolveScenario("kip-1228-gpa"));
    expect(typo).toMatch(
      /^--scenario: expected a built-in scenario \(eosfuzz scenarios lists the \d+\) or a scenario file, found "kip-1228-gpa" \(did you mean kip-1228-gap\?\)$/,
    );
    const far = thrown(() => resolveScenario("zzzzzz"));
    expect(far).toMatch(
      /^--scenario: expected a built-in scenario \(eosfuzz scenarios lists the \d+\) or a scenario file, found "zzzzzz"$/,
    );
    expect(thrown(() => resolveScenario("bugs/client-fautls"))).toMatch(/did you mean bugs\/client-faults\?\)$/);
    expect(thrown(() => resolveScenario("kip-1228-gap.yaml"))).toMatch(/did you mean kip-1228-gap[ ,)]/);
  });

  it("closeness: a typo, a prefix or another spelling, not a word four letters off", () => {
    expect(closestNames("transactons", ["transactions", "producers"])).toEqual(["transactions"]);
    expect(closestNames("cov", ["random", "coverage"])).toEqual(["coverage"]);
    expect(closestNames("min_insync_replicas", ["minInsyncReplicas", "min.insync.replicas"])).toEqual([
      "minInsyncReplicas",
      "min.insync.replicas",
    ]);
    expect(closestNames("zzzz", ["random", "coverage"])).toEqual([]);
  });

  it("a strategy on the command line", () => {
    const r = eosfuzz(["run", "--seeds", "1", "--strategy", "coverag"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'eosfuzz: --strategy: expected one of random, swarm, pct, coverage, exhaustive, found "coverag" (did you mean coverage?)\n',
    );
  });
});

describe("Kafka's property names", () => {
  const kafka = GOOD.replace("minInsyncReplicas: 2", "min.insync.replicas: 2").replace(
    "transactionTimeoutMs: 500",
    "transaction.timeout.ms: 500",
  );

  it("read as the fields that model them: the same scenario, the same content hash", () => {
    expect(problems(kafka)).toEqual([]);
    expect(parseScenario(kafka, "k.yaml").contentHash).toBe(parseScenario(GOOD, "g.yaml").contentHash);
    const broker = `${GOOD}`.replace(
      "topics:",
      "config: { transaction.max.timeout.ms: 700, producer.id.expiration.ms: 900 }\n  topics:",
    );
    const parsed = parseScenario(broker, "b.yaml").scenario.cluster.config;
    expect(parsed.transactionMaxTimeoutMs).toBe(700);
    expect(parsed.producerIdExpirationMs).toBe(900);
  });

  it("a problem names the property as it was written, at its line", () => {
    expect(problems(kafka.replace("min.insync.replicas: 2", "min.insync.replicas: 0"))).toEqual([
      expect.stringMatching(/^s\.yaml:7:\d+ cluster\.topics\[0\]\.min\.insync\.replicas: expected >= 1, found 0$/),
    ]);
  });

  it("both names of one setting are one problem; a Kafka name where no field models it is unknown", () => {
    const both = kafka.replace("min.insync.replicas: 2", "min.insync.replicas: 2, minInsyncReplicas: 2");
    expect(problems(both)).toEqual([
      expect.stringMatching(
        /min\.insync\.replicas: found both "min\.insync\.replicas" \(Kafka's name\) and "minInsyncReplicas"/,
      ),
    ]);
    const [batch] = problems(kafka.replace("transaction.timeout.ms: 500", "batch.size: 500"));
    expect(batch).toMatch(/workload\.batch\.size: unknown field "batch\.size"/);
  });
});

describe("--set path=value", () => {
  const base = () => parseScenario(GOOD, "s.yaml");

  it("changes a field, by the scenario's name or Kafka's, and replay commands repeat it", () => {
    const set = applySettings(
      base(),
      parseSettings([
        "workload.transactions=7",
        "cluster.topics[0].min.insync.replicas=1",
        "faults.network.slow={probability: 0.1}",
      ]),
    );
    expect(set.scenario.workload.transactions).toBe(7);
    expect(set.scenario.cluster.topics[0]?.minInsyncReplicas).toBe(1);
    expect(set.scenario.faults.network.slow).toEqual({ probability: 0.1, delayMs: [100, 1000] });
    expect(set.contentHash).not.toBe(base().contentHash);
    expect(scenarioArgument(set)).toBe(
      "s.yaml --set workload.transactions=7 --set 'cluster.topics[0].min.insync.replicas=1' --set 'faults.network.slow={probability: 0.1}'",
    );
  });

  it.each([
    [
      "workload.transactons=3",
      /^--set: workload\.transactons=3: expected a field of workload, found "transactons" \(did you mean "transactions"\?\)$/,
    ],
    ["workload.transactions=abc", /^--set: workload\.transactions=abc: expected number, found "abc"$/],
    [
      "cluster.topics[3].name=x",
      /^--set: cluster\.topics\[3\]\.name=x: expected an index of cluster\.topics \(1 item\), found \[3\]$/,
    ],
    ["seeds.x=1", /^--set: seeds\.x=1: expected nothing below seeds \(a value\), found "x"$/],
    [
      "workload.transactions",
      /^--set: expected path=value \(e\.g\. workload\.transactions=4\), found "workload\.transactions"$/,
    ],
    ["cluster.topics[0].replicationFactor=5", /^--set: cluster\.topics\[0\]\.replicationFactor: expected .*5/],
  ])("a bad setting %j is one line", (text, message) => {
    expect(thrown(() => applySettings(base(), parseSettings([text])))).toMatch(message);
  });

  it("on run, replay and regress: exit 2 and one line for a bad path; a good one is applied", () => {
    for (const argv of [
      ["run", "--scenario", "kip-1228", "--seeds", "1"],
      ["replay", join(ROOT, "seeds/kip-1228-gap.seed-6.json")],
      ["regress", "--scenarios", join(ROOT, "scenarios/bugs")],
    ]) {
      const r = eosfuzz([...argv, "--set", "workload.producer=1"]);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr).toBe(
        'eosfuzz: --set: workload.producer=1: expected a field of workload, found "producer" (did you mean "producers"?)\n',
      );
    }
    const run = eosfuzz(["run", "--scenario", "kip-1228", "--no-shrink", "--json", "--set", "seeds=2"]);
    expect(JSON.parse(run.stdout).seedsRun).toBe(2);
    const replay = eosfuzz([
      "replay",
      join(ROOT, "seeds/kip-1228-gap.seed-6.json"),
      "--json",
      "--set",
      "workload.producers=1",
    ]);
    expect(JSON.parse(replay.stdout).notes).toContain(
      "replayed with --set workload.producers=1: a changed scenario, so the trace may differ from the recorded one",
    );
    const dir = mkdtempSync(join(tmpdir(), "eosfuzz-set-"));
    mkdirSync(join(dir, "scenarios"));
    writeFileSync(join(dir, "scenarios", "mine.yaml"), GOOD);
    const regress = eosfuzz(["regress", "--scenarios", join(dir, "scenarios"), "--json", "--set", "seeds=1"]);
    expect(regress.code, regress.stderr).toBe(0);
    expect(JSON.parse(regress.stdout).rows[0]).toMatchObject({ name: "mine", seeds: 1, result: "pass" });
  });
});
