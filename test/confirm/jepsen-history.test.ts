import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { jepsenHistory } from "../../src/confirm/history/jepsen-history.js";
import type { ConfirmPlan } from "../../src/confirm/plan/plan.js";
import type { RealRun } from "../../src/confirm/run/real-run.js";

// A real run's client history in the shape Jepsen's Kafka checker reads: a transaction's invoke and
// completion (:ok with offsets, :fail when aborted, :info when unknown), then one final :poll.

const recorded = (name: string) =>
  JSON.parse(readFileSync(new URL(`./fixtures/real-runs/${name}`, import.meta.url), "utf8")) as {
    plan: ConfirmPlan;
    run: RealRun;
  };

const lines = (edn: string) => edn.trimEnd().split("\n");

describe("the Jepsen history of a real run", () => {
  it("kip-1228-gap on 4.2.1: three committed transactions with their offsets, then the final poll", () => {
    const { plan, run } = recorded("kip-1228-gap.all-4.2.1.json");
    const h = jepsenHistory(plan, run);
    expect(lines(h.edn)).toEqual([
      "{:index 0, :time 1129000000, :type :invoke, :process 0, :f :txn, :value [[:send 0 1] [:send 0 2]]}",
      "{:index 1, :time 1133000000, :type :invoke, :process 1, :f :txn, :value [[:send 0 3] [:send 0 4]]}",
      "{:index 2, :time 1678000000, :type :ok, :process 0, :f :txn, :value [[:send 0 [0 1]] [:send 0 [1 2]]]}",
      "{:index 3, :time 1725000000, :type :ok, :process 1, :f :txn, :value [[:send 0 [2 3]] [:send 0 [3 4]]]}",
      "{:index 4, :time 1824000000, :type :invoke, :process 1, :f :txn, :value [[:send 0 5] [:send 0 6]]}",
      "{:index 5, :time 3994000000, :type :ok, :process 1, :f :txn, :value [[:send 0 [6 5]] [:send 0 [7 6]]]}",
      "{:index 6, :time 4005000000, :type :invoke, :process 2, :f :poll, :value [[:poll]]}",
      "{:index 7, :time 4006000000, :type :ok, :process 2, :f :poll, :value [[:poll {0 [[0 1] [1 2] [2 3] [3 4] [6 5] [7 6]]}]]}",
    ]);
    expect(h.keys[0]).toBe("orders-0");
    expect(h.values[1]).toBe("p0.t1/0");
  });

  it("admin-abort-stale-epoch's lost write: a committed transaction whose records the final poll does not have", () => {
    const { plan, run } = recorded("admin-abort-stale-epoch.lost-write.json");
    expect(lines(jepsenHistory(plan, run).edn).map((o) => o.replace(/:time \d+, /, ""))).toEqual([
      "{:index 0, :type :invoke, :process 0, :f :txn, :value [[:send 0 1] [:send 0 2]]}",
      "{:index 1, :type :ok, :process 0, :f :txn, :value [[:send 0 [0 1]] [:send 0 [1 2]]]}",
      "{:index 2, :type :invoke, :process 1, :f :poll, :value [[:poll]]}",
      "{:index 3, :type :ok, :process 1, :f :poll, :value [[:poll {}]]}",
    ]);
  });

  it("an aborted transaction is :fail, one whose end got no answer :info, and each process alternates invoke and completion", () => {
    const { plan, run } = recorded("kip-1228-gap.all-4.2.1.json");
    const ends = run.steps.filter((s) => s.step.kind === "commit");
    (ends[0] as (typeof ends)[number]).step.kind = "abort";
    (ends[1] as (typeof ends)[number]).real = { kind: "unknown", detail: "no answer" };
    const ops = lines(jepsenHistory(plan, run).edn);
    expect(
      ops.filter((o) => !o.includes(":invoke")).map((o) => /:type :(\w+), :process (\d+)/.exec(o)?.slice(1).join(" ")),
    ).toEqual(["fail 0", "info 1", "ok 1", "ok 2"]);
    const last = new Map<string, string>();
    for (const op of ops) {
      const process = /:process (\d+)/.exec(op)?.[1] ?? "?";
      const type = /:type :(\w+)/.exec(op)?.[1] ?? "?";
      expect(type === "invoke", op).toBe(last.get(process) !== "invoke");
      last.set(process, type);
    }
  });
});
