import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InputErrors } from "../../src/common/input-error.js";
import { parseScenario } from "../../src/scenario/loader.js";
import { eosfuzz } from "../cli/cli-helpers.js";

const GOOD = `name: mine
cluster:
  brokers:
    - { id: tc-0, release: "4.2.1" }
    - { id: broker-1, release: "4.2.1" }
  transactionState: { replicas: [[tc-0]], minInsyncReplicas: 1 }
  topics:
    - { name: orders, replicas: [[broker-1]] }
workload:
  producers: 2
  transactions: 3
seeds: 2
`;

const SCRIPT = `name: mine-script
cluster:
  brokers: [{ id: tc-0, release: "4.2.1" }, { id: broker-1, release: "4.2.1" }]
  transactionState: { replicas: [[tc-0]], minInsyncReplicas: 1 }
  topics: [{ name: orders, replicas: [[broker-1]] }]
bounds: { quietPeriodMs: 11000 }
script:
  producers: [{ name: p0, transactionalId: txn-0, transactionTimeoutMs: 10000 }]
  steps:
    - { do: initTransactions, producer: p0 }
    - { do: beginTransaction, producer: p0 }
    - { do: send, producer: p0, partition: orders-0, value: a }
seeds: 1
`;

function runFile(text: string) {
  const dir = mkdtempSync(join(tmpdir(), "eosfuzz-scn-"));
  const file = join(dir, "s.yaml");
  writeFileSync(file, text);
  const r = eosfuzz(["run", "--scenario", file]);
  return { ...r, file };
}

/** One line on stderr, exit 2, naming file:line:col and the field. */
function expectOneLine(r: ReturnType<typeof runFile>, line: number, field: string, message: RegExp) {
  expect(r.code).toBe(2);
  const lines = r.stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  const escaped = `${r.file}:${line}:`.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  expect(lines[0]).toMatch(new RegExp(`^eosfuzz: ${escaped}\\d+ ${field.replace(/[.[\]]/g, "\\$&")}: `));
  expect(lines[0]).toMatch(message);
  expect(r.stdout).toBe("");
}

/** In-process: the InputError line the CLI would print (the CLI path itself is covered above). */
function expectMessage(text: string, line: number, field: string, message: RegExp) {
  let error: Error | null = null;
  try {
    parseScenario(text, "s.yaml");
  } catch (e) {
    error = e as Error;
  }
  expect(error?.name).toBe("InputError");
  expect(error?.message).toMatch(new RegExp(`^s\\.yaml:${line}:\\d+ ${field.replace(/[.[\]]/g, "\\$&")}: `));
  expect(error?.message).toMatch(message);
}

describe("scenario file mistakes: one line each, file:line:col, exit 2", () => {
  it("the good file runs", () => {
    expect(runFile(GOOD).code).toBe(0);
    expect(runFile(SCRIPT).code).toBe(0);
  });

  it("a typo in a field name", () => {
    expectOneLine(
      runFile(GOOD.replace("  transactions: 3", "  transactons: 3")),
      11,
      "workload.transactons",
      /unknown field "transactons"/,
    );
  });

  it("a wrong type", () => {
    expectOneLine(
      runFile(GOOD.replace("producers: 2", 'producers: "two"')),
      10,
      "workload.producers",
      /expected number, found "two"/,
    );
  });

  it("a negative count", () => {
    expectOneLine(runFile(GOOD.replace("seeds: 2", "seeds: -4")), 12, "seeds", /expected >= 1, found -4/);
  });

  it("an unknown release", () => {
    expectOneLine(
      runFile(GOOD.replace('{ id: broker-1, release: "4.2.1" }', '{ id: broker-1, release: "4.9" }')),
      5,
      "cluster.brokers[1].release",
      /expected one of "3\.x" \| "4\.0" \| .* \| "4\.4", found "4\.9"/,
    );
  });

  it("a duplicate rate under the TCP network model (TCP never delivers a connection's message twice)", () => {
    const tcp = `${GOOD}faults:\n  network: { model: tcp, duplicate: 0.01 }\n`;
    expectMessage(tcp, 14, "faults.network.duplicate", /expected 0 under faults.network.model tcp .* found 0\.01/);
    expect(() => parseScenario(tcp.replace("tcp", "adversarial"), "s.yaml")).not.toThrow();
    expect(() => parseScenario(tcp.replace(", duplicate: 0.01", ""), "s.yaml")).not.toThrow();
  });

  it("a scripted network duplicate under the TCP network model", () => {
    const tcp = `${SCRIPT}faults:\n  network: { model: tcp }\n`.replace(
      "    - { do: send, producer: p0, partition: orders-0, value: a }",
      "    - { do: hold, api: Produce, from: p0, to: broker-1, as: m }\n    - { do: duplicate, held: m }",
    );
    expectMessage(tcp, 13, "script.steps[3].do", /expected no duplicate step under faults.network.model tcp/);
    expect(() => parseScenario(tcp.replace("model: tcp", "model: adversarial"), "s.yaml")).not.toThrow();
  });

  it("a script step with an unknown action", () => {
    expectMessage(
      SCRIPT.replace("do: beginTransaction", "do: beginTxn"),
      11,
      "script.steps[1].do",
      /expected one of "initTransactions" \| .*"read", found "beginTxn"/,
    );
  });

  it("a script step naming a producer that does not exist", () => {
    expectMessage(
      SCRIPT.replace("{ do: send, producer: p0", "{ do: send, producer: p9"),
      12,
      "script.steps[2].producer",
      /expected a script producer \(p0\), found "p9"/,
    );
  });

  it("a script step naming a partition that does not exist", () => {
    expectMessage(
      SCRIPT.replace("partition: orders-0", "partition: orders-7"),
      12,
      "script.steps[2].partition",
      /expected a partition of the cluster \(orders-0\), found "orders-7"/,
    );
  });

  it("releasing a message no earlier step held", () => {
    expectMessage(
      `${SCRIPT.replace("seeds: 1\n", "")}    - { do: release, held: r1 }\nseeds: 1\n`,
      13,
      "script.steps[3].held",
      /expected the name of an earlier hold step \(\), found "r1"/,
    );
  });

  it("a script together with a fuzzed workload", () => {
    expectMessage(
      `${SCRIPT}workload: { producers: 1 }\n`,
      14,
      "workload",
      /expected either a workload or a script, found both/,
    );
  });
});

describe("every problem of a scenario at once (item 9 of the reliability issue)", () => {
  const three = GOOD.replace("  transactions: 3", "  transactons: 3")
    .replace("producers: 2", "producers: 0")
    .replace('{ id: broker-1, release: "4.2.1" }', '{ id: broker-1, release: "4.9" }');

  it("on the command line: one line each, in the order of the file, exit 2", () => {
    const r = runFile(three);
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^eosfuzz: \S+:5:\d+ cluster\.brokers\[1\]\.release: expected one of .*found "4\.9"( \(did you mean [^)]*\))?$/,
    );
    expect(lines[1]).toMatch(/^eosfuzz: \S+:10:\d+ workload\.producers: expected >= 1, found 0$/);
    expect(lines[2]).toMatch(/^eosfuzz: \S+:11:\d+ workload\.transactons: unknown field "transactons"/);
  });

  it("in the library: one InputError whose message is the first with a count, and all of them in `all`", () => {
    let error: unknown = null;
    try {
      parseScenario(three, "s.yaml");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputErrors);
    expect((error as InputErrors).message).toMatch(
      /^s\.yaml:5:\d+ cluster\.brokers\[1\]\.release: .* \(\+2 more problems\)$/,
    );
    expect((error as InputErrors).all.map((e) => e.field)).toEqual([
      "cluster.brokers[1].release",
      "workload.producers",
      "workload.transactons",
    ]);
  });
});
