import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { checkDeterminism, describeDivergence } from "../../src/fuzz/run/determinism-check.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { normalizeTape, shrinkFailure, shrinkTape, targetOf } from "../../src/fuzz/shrink/shrink.js";
import { toClusterSpec } from "../../src/scenario/to-cluster-spec.js";
import { Rng } from "../../src/sim/rng.js";
import { resolveScenario } from "../../src/scenario/loader.js";
import { tapeLength } from "../../src/sim/choice-tape.js";
import type { ReleaseFlags } from "../../src/kafka/release.js";

function firstFailure(
  name: string,
  kind = "stale-marker",
  where: (v: { brokerRelease?: string }) => boolean = () => true,
) {
  const loaded = resolveScenario(name);
  const config = runConfigFor(loaded);
  for (let seed = 0; seed < 500; seed++) {
    const r = runSeed(config, { seed }, { recordTape: true });
    const v = r.violations.find((x) => x.kind === kind && where(x));
    if (v) return { loaded, config, seed, run: r, violation: v };
  }
  throw new Error(`no ${kind} in 500 seeds of ${name}`);
}

function firstFailureOf(name: string, kind: string, overrides: Partial<ReleaseFlags>) {
  const loaded = resolveScenario(name);
  const config = { scenario: loaded.scenario.name, spec: toClusterSpec(loaded.scenario, overrides) };
  for (let seed = 0; seed < 200; seed++) {
    const r = runSeed(config, { seed }, { recordTape: true });
    const v = r.violations.find((x) => x.kind === kind);
    if (v) return { loaded, run: r, violation: v };
  }
  throw new Error(`no ${kind} in 200 seeds of ${name}`);
}

/** Producer of a ghost transaction id such as p0.t3 or p0#2.t5. */
const producerOf = (ghost: string | undefined) => ghost?.split(".t")[0];
const txnIndex = (ghost: string | undefined) => Number(ghost?.split(".t")[1]);

describe("shrinking a stale-marker failure", () => {
  it.each(["kip-1228-gap", "tv1-legacy"])(
    "%s: at most a quarter of the events, two transactions of one producer, one stale marker",
    (name) => {
      // At the 4.1 leader one producer suffices (any coordinator sends it v1); a stale marker at a
      // 4.2.1 leader needs the producer whose transactional.id the 4.1 broker coordinates.
      const { loaded, run, violation } = firstFailure(name, "stale-marker", (v) => v.brokerRelease !== "4.2.1");
      const result = shrinkFailure(loaded.scenario, {}, run.tape!, targetOf(violation), { budgetMs: 60_000 });
      expect(result.stoppedBy).toBe("fixpoint");
      expect(result.after.events).toBeLessThanOrEqual(result.original.events / 4);
      expect(result.after.faults).toBeLessThan(result.original.faults);
      // The two transactions of the stale marker, and at most one more begun after it: the shrinker
      // tries 1 producer x 2 transactions first, and keeps 1 x 3 when 1 x 2 does not show it in its seeds.
      expect(result.after.transactions).toBeLessThanOrEqual(3);
      expect(result.after.producers).toBe(1);
      expect(result.after.violations).toBe(1);
      const config = { scenario: result.scenario.name, spec: toClusterSpec(result.scenario) };
      const v = result.violation;
      expect(v.kind).toBe("stale-marker");
      expect(v.broker).toBe(violation.broker);
      expect(producerOf(v.markerIssuedFor)).toBe(producerOf(v.transaction));
      expect(txnIndex(v.transaction) - txnIndex(v.markerIssuedFor)).toBe(1);
      expect(txnIndex(v.transaction)).toBeLessThanOrEqual(2);
      // The shrunk tape stands alone: it replays to the same violation and trace hash.
      const replayed = runSeed(config, { tape: result.tape });
      expect(replayed.traceHash).toBe(result.traceHash);
      expect(replayed.violations.some((x) => x.kind === "stale-marker" && x.broker === violation.broker)).toBe(true);
    },
  );

  it("a stale marker at a 4.2.1 leader keeps the producer whose transactional.id the 4.1 broker coordinates", () => {
    // It came as WriteTxnMarkers v1 from the 4.1 coordinator: one-producer workloads (p0 only) cannot show it.
    const { loaded, run, violation } = firstFailure("kip-1228-gap", "stale-marker", (v) => v.brokerRelease === "4.2.1");
    const target = targetOf(violation);
    expect(target.producers).toBeGreaterThan(1);
    const result = shrinkFailure(loaded.scenario, {}, run.tape!, target, { budgetMs: 60_000 });
    expect(result.stoppedBy).toBe("fixpoint");
    expect(result.reduction?.producers[1]).toBe(target.producers);
    expect(result.after.events).toBeLessThanOrEqual(result.original.events / 4);
    expect(result.violation).toMatchObject({ kind: "stale-marker", broker: violation.broker, brokerRelease: "4.2.1" });
  });

  it("drops the replicas a stale marker does not need: one replica per partition, no follower fetches", () => {
    const { loaded, run, violation } = firstFailure("kip-1228-gap");
    const result = shrinkFailure(loaded.scenario, {}, run.tape!, targetOf(violation), { budgetMs: 60_000 });
    expect(result.reduction?.singleReplica).toBe(true);
    const spec = toClusterSpec(result.scenario);
    const partitions = [...spec.topics.flatMap((t) => t.partitions), ...spec.transactionState.partitions];
    for (const p of partitions) expect(p.replicas).toHaveLength(1);
    expect(result.scenario.cluster.transactionState.minInsyncReplicas).toBe(1);
  });

  it("keeps the replicas a lost write needs (the leader acknowledged what no follower had)", () => {
    const { loaded, run, violation } = firstFailureOf("leader-failover", "lost-write", {
      highWatermarkFromIsr: false,
    });
    const result = shrinkFailure(loaded.scenario, { highWatermarkFromIsr: false }, run.tape!, targetOf(violation), {
      budgetMs: 60_000,
    });
    expect(result.violation.kind).toBe("lost-write");
    expect(result.reduction?.singleReplica ?? false).toBe(false);
  });

  it("returns an already-minimal tape unchanged", () => {
    // tv1-legacy's first failure (seed 7) shrinks to its fixpoint in about a thousand runs (kip-1228-gap's
    // in five thousand), and checking that fixpoint again still tries every reduction of it (88 runs).
    const { config, run, violation } = firstFailure("tv1-legacy");
    const once = shrinkTape(config, run.tape!, targetOf(violation), { budgetMs: 60_000 });
    expect(once.stoppedBy).toBe("fixpoint");
    const twice = shrinkTape(config, once.tape, targetOf(violation), { budgetMs: 60_000 });
    expect(twice.tape).toEqual(once.tape);
    expect(twice.stoppedBy).toBe("fixpoint");
  });

  it("stops at its budget and keeps the best tape found so far", () => {
    const { config, run, violation } = firstFailure("kip-1228-gap");
    let clock = 0;
    const result = shrinkTape(config, run.tape!, targetOf(violation), { budgetMs: 20, nowMs: () => (clock += 1) });
    expect(result.stoppedBy).toBe("budget");
    expect(tapeLength(result.tape)).toBeLessThanOrEqual(tapeLength(normalizeTape(run.tape!)));
    expect(runSeed(config, { tape: result.tape }).violations.some((x) => x.kind === "stale-marker")).toBe(true);
  });

  it("refuses a tape that does not show the target", () => {
    const config = runConfigFor(resolveScenario("kip-1228"));
    const run = runSeed(config, { seed: 1 }, { recordTape: true });
    expect(() => shrinkTape(config, run.tape!, { kind: "stale-marker" }, { budgetMs: 1_000 })).toThrow(
      /does not show stale-marker/,
    );
  });
});

describe("determinism self-check", () => {
  it("passes on built-in scenarios", () => {
    for (const name of ["kip-1228-gap", "tv1-legacy", "kip-1228-4.2.0"]) {
      const config = runConfigFor(resolveScenario(name));
      for (const seed of [0, 7]) expect(checkDeterminism(config, { seed }).deterministic).toBe(true);
    }
  });

  it("catches a planted nondeterminism and names the first divergent event", () => {
    const config = runConfigFor(resolveScenario("kip-1228-gap"));
    // The planted bug: a copy of the random-number component whose 300th draw differs on the
    // second run, as a leftover Math.random or a wall-clock read would.
    let calls = 0;
    const original = Rng.prototype.intBelow;
    const runner = (c: typeof config, input: { seed: number } | { tape: Record<string, number[]> }) => {
      calls++;
      const planted = calls === 2;
      let draws = 0;
      Rng.prototype.intBelow = function (this: Rng, n: number) {
        const v = original.call(this, n);
        // From the 300th draw on, small ranges (delays, picks) come out one higher.
        return planted && ++draws >= 300 && n <= 1_000 ? (v + 1) % n : v;
      };
      try {
        return runSeed(c, input, { recordTrace: true });
      } finally {
        Rng.prototype.intBelow = original;
      }
    };
    const verdict = checkDeterminism(config, { seed: 3 }, runner);
    expect(verdict.deterministic).toBe(false);
    if (verdict.deterministic) return;
    expect(verdict.index).toBeGreaterThan(0);
    expect(verdict.first).not.toEqual(verdict.second);
    const lines = describeDivergence(verdict);
    expect(lines[0]).toMatch(/diverge at trace event #\d+/);
    expect(lines[1]).toMatch(/first run: +#\d+ t=\d+ms/);
  });
});

describe("the minimal story", () => {
  it("tells the KIP-1228 gap as KAFKA.md 6(b) does, step for step", async () => {
    const { renderStory } = await import("../../src/oracle/story.js");
    const { loaded, run, violation } = firstFailure("kip-1228-gap");
    const shrunk = shrinkFailure(loaded.scenario, {}, run.tape!, targetOf(violation), { budgetMs: 60_000 });
    const replay = runSeed(
      { scenario: "kip-1228-gap", spec: toClusterSpec(shrunk.scenario) },
      { tape: shrunk.tape },
      { recordTrace: true },
    );
    const v = replay.violations.find((x) => x.kind === "stale-marker")!;
    const story = renderStory(replay.trace!, v);
    expect(story.length).toBeLessThanOrEqual(30);
    const [t1, t2] = [v.markerIssuedFor!, v.transaction!];
    // 6(b): T1 writes; EndTxn -> PrepareCommit/Abort at epoch+1 (TV2); the marker goes out as v1;
    // a copy is duplicated or delayed; the other copy completes T1; T2 writes at the same
    // partition at the new epoch; the stale copy passes the legacy rule and closes T2's records.
    const steps = [
      new RegExp(`appends ${t1}'s record at ${v.partition}`),
      new RegExp(`writes Prepare(Commit|Abort) for ${t1} at epoch \\d+ \\(bumped from \\d+: TV2`),
      new RegExp(`sends marker #\\d+ to ${v.broker}: WriteTxnMarkers v1`),
      /fault: /,
      new RegExp(`accepts ${t1}'s (COMMIT|ABORT) marker at ${v.partition} .*closing`),
      new RegExp(`writes Complete(Commit|Abort) for ${t1}`),
      new RegExp(`appends ${t2}'s record at ${v.partition}`),
      new RegExp(
        `accepts ${t1}'s (?:COMMIT|ABORT) marker at ${v.partition} \\(TransactionVersion 0 read, legacy rule (\\d+) >= \\1\\).*closing`,
      ),
      /=> stale-marker/,
    ];
    let at = 0;
    for (const step of steps) {
      const found = story.findIndex((line, i) => i >= at && step.test(line));
      expect(found, `step ${step} in\n${story.join("\n")}`).toBeGreaterThanOrEqual(at);
      at = found + 1;
    }
  });
});
