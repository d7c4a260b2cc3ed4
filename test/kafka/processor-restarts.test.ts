import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { findMutant } from "../../src/fuzz/catalogue/mutants.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import type { LoadedScenario } from "../../src/scenario/loader.js";
import { resolveScenario } from "../../src/scenario/loader.js";
import type { TraceEvent } from "../../src/sim/trace.js";

/** The scenario with its processing section changed by `edit` (a copy: the loaded one is untouched). */
function withProcessing(
  loaded: LoadedScenario,
  edit: (p: NonNullable<LoadedScenario["scenario"]["processing"]>) => void,
): LoadedScenario {
  const scenario = structuredClone(loaded.scenario);
  edit(scenario.processing as NonNullable<typeof scenario.processing>);
  return { ...loaded, scenario };
}

function events(trace: readonly TraceEvent[] | undefined, kind: string, node?: string): TraceEvent[] {
  return (trace ?? []).filter((e) => e.kind === kind && (node === undefined || e.node === node));
}

describe("a processor restarted with a new transactional.id (EOS v2: the id is not tied to the input)", () => {
  // Nothing fences the old instance's producer by epoch (its InitProducerId is for another id): only
  // KIP-447's check of the TxnOffsetCommit's group metadata does. ClassicGroup.validateOffsetCommit
  // checks the member (validateMember: UNKNOWN_MEMBER_ID) before the generation (ILLEGAL_GENERATION);
  // q1's member was expelled at its session timeout, so the answer is UNKNOWN_MEMBER_ID.
  it("kip-447-zombie seed 8: q1, paused, is replaced by proc-txn-1-r2; its late TxnOffsetCommit is refused and its transaction aborts; without the check, zombie-commit", () => {
    const loaded = resolveScenario("kip-447-zombie");
    const run = runSeed(runConfigFor(loaded), { seed: 8 }, { recordTrace: true });
    expect(run.violations).toEqual([]);
    const crash = events(run.trace, "fault.processor-crash").find((e) => e.fields.processor === "q1");
    expect(crash?.fields.newTransactionalId).toBe("proc-txn-1-r2");
    const abortable = events(run.trace, "producer.abortable", "q1").find((e) => e.timeMs > (crash?.timeMs ?? 0));
    expect(abortable?.fields).toEqual({ reason: "TxnOffsetCommit: UNKNOWN_MEMBER_ID", txn: "q1.t4" });
    const outcome = events(run.trace, "producer.outcome", "q1").find((e) => e.fields.txn === "q1.t4");
    expect(outcome?.fields.outcome).toBe("aborted");

    const mutant = findMutant("no-kip-447-generation-check");
    const broken = runSeed(runConfigFor(loaded, mutant?.overrides ?? {}), { seed: 8 });
    const zombie = broken.violations.find((v) => v.kind === "zombie-commit" && v.transaction === "q1.t4");
    expect(zombie?.explanation.join("\n")).toContain("transaction q1.t4 of processor q1 (proc-txn-1)");
    expect(zombie?.explanation.join("\n")).toContain("member eos-app-m3 was no longer in it");
  });

  // Before this was fixed, q0#2 started anyway at 2478 ms: its consumer joined (724 trace events)
  // and held partitions to the end of the run while its stopped loop processed nothing.
  it("kip-447-zombie seed 9: q0#2 crashes at 2100 ms, before its start at 2478 ms; it never starts, so no member of it joins", () => {
    const run = runSeed(runConfigFor(resolveScenario("kip-447-zombie")), { seed: 9 }, { recordTrace: true });
    const crashes = events(run.trace, "fault.processor-crash");
    const first = crashes.find((e) => e.fields.processor === "q0") as TraceEvent;
    const second = crashes.find((e) => e.fields.processor === "q0#2") as TraceEvent;
    expect(second.timeMs).toBeLessThan(first.timeMs + Number(first.fields.restartInMs));
    expect((run.trace ?? []).filter((e) => e.node === "q0#2-consumer")).toEqual([]);
    expect(events(run.trace, "producer.initialized", "q0#2")).toEqual([]);
  });

  it("the new ids are named for the slot and restart; at rate 0 every instance keeps its slot's id", () => {
    const loaded = resolveScenario("kip-447-zombie");
    const ids = (l: LoadedScenario) => {
      const run = runSeed(runConfigFor(l), { seed: 8 }, { recordTrace: true });
      return events(run.trace, "fault.processor-crash").map((e) => e.fields.newTransactionalId ?? null);
    };
    expect(ids(loaded).slice(0, 3)).toEqual(["proc-txn-1-r2", "proc-txn-1-r3", "proc-txn-0-r2"]);
    const same = withProcessing(loaded, (p) => {
      p.crash.newTransactionalIdRate = 0;
      p.leave.newTransactionalIdRate = 0;
    });
    expect(ids(same).every((id) => id === null)).toBe(true);
  });
});

describe("a processor that closes cleanly sends LeaveGroup (KafkaConsumer.close -> AbstractCoordinator.close -> maybeLeaveGroup)", () => {
  it("eos-processor seed 0: q0's producer closes, then its LeaveGroup; the others' next generation completes before the session timeout", () => {
    const loaded = resolveScenario("eos-processor");
    const run = runSeed(runConfigFor(loaded), { seed: 0 }, { recordTrace: true });
    expect(run.violations).toEqual([]);
    const leave = events(run.trace, "fault.processor-leave")[0] as TraceEvent;
    expect(leave.fields.processor).toBe("q0");
    // ExactlyOnceMessageProcessor.close: producer.close(), then consumer.close().
    const closed = events(run.trace, "producer.closed", "q0")[0] as TraceEvent;
    const request = events(run.trace, "group.request").find(
      (e) => e.fields.api === "LeaveGroup" && e.timeMs >= leave.timeMs,
    ) as TraceEvent;
    expect(closed.index).toBeLessThan(request.index);
    expect(request.fields.error).toBe(0);
    const leaver = request.fields.member;
    // The group rebalances at once: a later generation is synced without the leaver, well within
    // session.timeout.ms of the LeaveGroup, and the leaver is never expired by the session timeout.
    const sessionTimeoutMs = loaded.scenario.processing?.sessionTimeoutMs as number;
    const synced = events(run.trace, "group.request").find(
      (e) => e.fields.api === "SyncGroup" && e.fields.error === 0 && e.index > request.index,
    ) as TraceEvent;
    expect(synced.fields.member).not.toBe(leaver);
    expect(synced.timeMs - request.timeMs).toBeLessThan(sessionTimeoutMs);
    const expired = events(run.trace, "group.members-expired").map((e) => String(e.fields.members));
    expect(expired.some((m) => m.split(",").includes(String(leaver)))).toBe(false);
  });

  it("a transaction under way completes before the producer closes: the loop lets commitTransaction return", () => {
    const loaded = resolveScenario("eos-processor");
    for (const seed of [0, 1, 2, 3, 4, 5]) {
      const run = runSeed(runConfigFor(loaded), { seed }, { recordTrace: true });
      for (const leave of events(run.trace, "fault.processor-leave")) {
        const node = String(leave.fields.processor);
        const closed = events(run.trace, "producer.closed", node)[0] as TraceEvent;
        // An instance already closed (max.block.ms ran out while paused) just leaves the group.
        if (closed.index < leave.index) continue;
        const begun = events(run.trace, "producer.begin", node).map((e) => e.fields.txn);
        const ended = events(run.trace, "producer.outcome", node).filter((e) => e.index < closed.index);
        // Every transaction this instance began has its outcome before it closed: none left to time out.
        expect(ended.map((e) => e.fields.txn)).toEqual(begun);
        expect(ended.every((e) => e.fields.outcome !== "unknown")).toBe(true);
      }
    }
  });
});

describe("the restart options are seeded choices", () => {
  it("the same seed, or its choice tape, gives the same trace with new transactional ids and LeaveGroup restarts", () => {
    const config = runConfigFor(resolveScenario("eos-processor"));
    const a = runSeed(config, { seed: 3 }, { recordTrace: true, recordTape: true });
    const b = runSeed(config, { seed: 3 });
    expect(b.traceHash).toBe(a.traceHash);
    // Replayed from its choice tape (as replay and the shrinker do), the run is the same run.
    expect(runSeed(config, { tape: a.tape ?? {} }).traceHash).toBe(a.traceHash);
    const faults = [...events(a.trace, "fault.processor-crash"), ...events(a.trace, "fault.processor-leave")];
    expect(faults.length).toBeGreaterThan(0);
  });

  it("a scenario without graceful restarts never names their choice stream: its choice tape is the one from before them", () => {
    const run = runSeed(runConfigFor(resolveScenario("eos-processor-gap")), { seed: 0 }, { recordTape: true });
    const streams = Object.keys(run.tape ?? {});
    expect(streams).toContain("nemesis:processor-pause");
    expect(streams).not.toContain("nemesis:processor-leave");
  });
});
