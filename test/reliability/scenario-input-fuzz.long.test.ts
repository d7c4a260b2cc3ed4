import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { BUILTIN_SCENARIO_DIR, builtinScenarioNames, parseScenario } from "../../src/scenario/loader.js";
import { parse } from "yaml";
import {
  acceptedOrCleanlyRejected,
  applyEdits,
  edit,
  expectCleanInputError,
  FUZZ_RUNS,
  FUZZ_SEED,
  type Json,
  nested,
  textDamage,
  thrownBy,
} from "./input-fuzz-helpers.js";

/**
 * Issue 9: bad scenario files never crash the tool. Each property feeds 2,000 generated files to the
 * loader the CLI uses; every one is either accepted (and then runs without a model error) or
 * rejected with one clean line naming the file, the field and what was expected.
 */

const FILE = "fuzzed.yaml";
const texts = Object.fromEntries(
  builtinScenarioNames().map((n) => [n, readFileSync(join(BUILTIN_SCENARIO_DIR, `${n}.yaml`), "utf8")]),
);
const docs = Object.fromEntries(Object.entries(texts).map(([n, t]) => [n, parse(t) as Json]));
const fuzzedNames = Object.keys(docs).filter((n) => !(docs[n] as { script?: unknown }).script);

/** Events one accepted file may run for here: enough to start and check a cluster, small enough for 2,000 files. */
const EVENTS_PER_CHECK = 1_000;

/** Parse `text`; a rejection must be clean, an acceptance must build and run a (short) seed without a model error. */
function checkScenarioText(text: string): "accepted" | "rejected" {
  const accepted = acceptedOrCleanlyRejected(() => parseScenario(text, FILE), FILE);
  if (accepted === null) return "rejected";
  const s = accepted.scenario;
  const short = {
    ...accepted,
    scenario: { ...s, bounds: { ...s.bounds, maxEvents: Math.min(s.bounds.maxEvents, EVENTS_PER_CHECK) } },
  };
  const result = runSeed(runConfigFor(short), { seed: 0 });
  const errors = result.violations.filter((v) => v.kind === "model-error" && !/exceeded \d+ events/.test(v.summary));
  expect(errors.map((v) => v.summary)).toEqual([]);
  return "accepted";
}

const asText = (doc: Json, format: "yaml" | "json") => (format === "yaml" ? stringify(doc) : JSON.stringify(doc));

describe("fuzzed scenario files (2,000 each): accepted and runnable, or one clean line", () => {
  it("valid scenarios with random fields replaced, removed or added (wrong types, out of range, huge, unknown fields, releases, flags)", () => {
    const outcomes = { accepted: 0, rejected: 0 };
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(docs)),
        fc.array(edit, { minLength: 1, maxLength: 3 }),
        fc.constantFrom("yaml" as const, "json" as const),
        (name, edits, format) => {
          outcomes[checkScenarioText(asText(applyEdits(docs[name] as Json, edits), format))]++;
        },
      ),
      { seed: FUZZ_SEED, numRuns: FUZZ_RUNS },
    );
    // The edits are mostly harmful but not always: both paths were exercised.
    expect(outcomes.rejected).toBeGreaterThan(FUZZ_RUNS / 2);
    expect(outcomes.accepted).toBeGreaterThan(20);
  });

  it("damaged text: truncated, spliced, binary garbage, empty, odd YAML documents", () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.values(texts)).chain(textDamage), (text) => {
        checkScenarioText(text);
      }),
      { seed: FUZZ_SEED, numRuns: FUZZ_RUNS },
    );
  });

  it("contradictory settings are always rejected, naming the field", () => {
    // biome-ignore lint/suspicious/noExplicitAny: free-form edits of parsed YAML
    type Doc = { [k: string]: any };
    const contradictions: [string, RegExp, (d: Doc, i: number) => void][] = [
      [
        "a partition assigned to a broker that does not exist",
        /cluster\.topics\[\d+\]\.replicas\[\d+\]\[0\]: expected one of the brokers/,
        (d, i) => {
          const t = d.cluster.topics[i % d.cluster.topics.length];
          delete t.partitions;
          delete t.replicationFactor;
          t.replicas = [[`broker-${90 + (i % 9)}`]];
        },
      ],
      [
        "a __transaction_state partition assigned to a broker that does not exist",
        /cluster\.transactionState\.replicas\[0\]\[0\]: expected one of the brokers/,
        (d, i) => {
          d.cluster.transactionState = { replicas: [[`broker-${90 + (i % 9)}`]] };
        },
      ],
      [
        "two brokers with one id",
        /cluster\.brokers\[\d+\]\.id: expected a unique broker id/,
        (d) => {
          d.cluster.brokers.push({ ...d.cluster.brokers[0] });
        },
      ],
      [
        "a replication factor above the number of brokers",
        /cluster\.topics\[0\]\.replicationFactor: expected at most \d+ \(the number of brokers\)/,
        (d) => {
          const t = d.cluster.topics[0];
          delete t.replicas;
          t.replicationFactor = d.cluster.brokers.length + 1;
        },
      ],
      [
        "an upgrade of a node that does not exist",
        /faults\.upgrades\[0\]\.node: expected a broker id/,
        (d, i) => {
          d.faults ??= {};
          d.faults.upgrades = [{ atMs: i % 10_000, node: "ghost-1", release: "4.2.1" }];
        },
      ],
      [
        "more partitions per transaction than the cluster has",
        /workload\.partitionsPerTxn: expected at most \d+ partitions/,
        (d, i) => {
          d.workload ??= {};
          d.workload.partitionsPerTxn = [200 + (i % 800), 1000];
        },
      ],
      [
        "transaction.version 2 with a 3.x broker",
        /expected a release that supports transaction\.version 2|expected <= cluster.transactionVersion/,
        (d) => {
          d.workload ??= {};
          d.workload.transactionVersion = 2;
          d.cluster.transactionVersion = 2;
          d.cluster.brokers[0].release = "3.x";
          delete d.cluster.brokers[0].overrides;
        },
      ],
      [
        "clean and find at once",
        /expect\.clean: expected either clean: true or a find\/findAny list/,
        (d) => {
          d.expect = { clean: true, find: ["stale-marker"] };
        },
      ],
      [
        "a quiet period shorter than a transaction timeout",
        /bounds\.quietPeriodMs: expected >= \d+/,
        (d, i) => {
          d.workload ??= {};
          d.workload.transactionTimeoutMs = 60_000 + i;
          d.bounds = { ...(d.bounds ?? {}), quietPeriodMs: 1_000 };
        },
      ],
      [
        "a workload bigger than one run can hold",
        /workload\.(transactions|recordsPerTxn): expected at most [\d,]+ (transactions|records) per seed/,
        (d, i) => {
          d.workload = {
            ...(d.workload ?? {}),
            producers: 64,
            transactions: 800 + i,
            recordsPerTxn: [1, 1 + (i % 1_000)],
          };
        },
      ],
      [
        "two topics with one name",
        /cluster\.topics\[\d+\]\.name: expected a unique topic name/,
        (d) => {
          d.cluster.topics.push({ ...d.cluster.topics[0] });
        },
      ],
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...fuzzedNames),
        fc.nat({ max: contradictions.length - 1 }),
        fc.nat({ max: 999 }),
        fc.constantFrom("yaml" as const, "json" as const),
        (name, which, i, format) => {
          const [, pattern, mutate] = contradictions[which] as (typeof contradictions)[number];
          const doc = structuredClone(docs[name]) as Doc;
          mutate(doc, i);
          const error = thrownBy(() => parseScenario(asText(doc, format), FILE));
          expectCleanInputError(error, FILE);
          expect(error.message).toMatch(pattern);
        },
      ),
      { seed: FUZZ_SEED, numRuns: FUZZ_RUNS },
    );
  });

  it("YAML that attacks the parser: deep nesting, alias bombs, duplicate keys, tags, huge numbers", () => {
    const base = texts["kip-1228"] as string;
    const attacks = fc.oneof(
      fc
        .integer({ min: 1, max: 20_000 })
        .map((depth) => `name: x\ncluster: ${"[".repeat(depth)}${"]".repeat(depth)}\n`),
      fc.integer({ min: 1, max: 400 }).map((depth) => `${base}\nworkload: ${JSON.stringify(nested(depth))}\n`),
      fc.integer({ min: 2, max: 14 }).map((levels) => {
        let s = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
        for (let i = 1; i < levels; i++)
          s += `a${i}: &a${i} [${Array(10)
            .fill(`*a${i - 1}`)
            .join(", ")}]\n`;
        return `${s}${base}`;
      }),
      fc
        .constantFrom("name", "cluster", "seeds", "workload")
        .map((key) => base.replace(/\nseeds:/, `\n${key}: 1\nseeds:`)),
      fc
        .constantFrom(
          "!!binary aGVsbG8=",
          "!!js/function 'function(){}'",
          "!!set {a, b}",
          "!!omap [a: 1]",
          "!!timestamp 2001-12-14",
          "!ruby/object {}",
          "*undefined_alias",
        )
        .map((v) => base.replace(/seeds: \d+/, `seeds: ${v}`)),
      fc
        .constantFrom(
          "1e400",
          "-1e400",
          ".inf",
          "-.inf",
          ".nan",
          "0x7fffffffffffffffff",
          "99999999999999999999999",
          "1_000",
          "0o777",
          "-0",
        )
        .map((v) => base.replace(/seeds: \d+/, `seeds: ${v}`)),
      fc.string({ maxLength: 3 }).map((s) => `${base}\n${s}: [`),
    );
    fc.assert(
      fc.property(attacks, (text) => {
        checkScenarioText(text);
      }),
      { seed: FUZZ_SEED, numRuns: FUZZ_RUNS },
    );
  });
});
