import type { ConfirmPlan } from "../plan/plan.js";
import type { RealRun, StepRecord } from "../run/real-run.js";

/**
 * A real run's client history in the shape Jepsen's Kafka workload checker reads
 * (jepsen.tests.kafka): one EDN operation map a line, `:index`ed in time order, each transaction an
 * `:invoke` of `:f :txn` with its `[:send k v]` micro-ops and its completion, `:ok` with each send's
 * `[offset v]` (committed), `:fail` (aborted) or `:info` (the outcome is unknown); then the final
 * read_committed reading as one `:poll` of every key. A key is a partition (its position among the
 * plan's partitions), a value a unique integer per record (Jepsen's values are integers).
 */
export interface JepsenHistory {
  /** history.edn: one operation a line. */
  edn: string;
  /** What each key and value stand for. */
  keys: Record<number, string>;
  values: Record<number, string>;
}

interface Op {
  type: "invoke" | "ok" | "fail" | "info";
  f: "txn" | "poll";
  process: number;
  atMs: number;
  value: string;
}

export function jepsenHistory(plan: ConfirmPlan, run: RealRun): JepsenHistory {
  const partitions = plan.topics.flatMap((t) => t.assignment.map((_, p) => `${t.name}-${p}`));
  const keyOf = new Map(partitions.map((p, i) => [p, i]));
  const valueIds = new Map<string, number>();
  const valueIdOf = (v: string): number => {
    let id = valueIds.get(v);
    if (id === undefined) {
      id = valueIds.size + 1;
      valueIds.set(v, id);
    }
    return id;
  };
  const processOf = new Map(plan.producers.map((p, i) => [p.name, i]));
  const ops: Op[] = [];

  // One transaction: from its begin to its commit or abort, with the sends between.
  const open = new Map<string, { begin: StepRecord; sends: StepRecord[] }>();
  for (const s of run.steps) {
    const st = s.step;
    if (st.kind === "begin") open.set(st.txn, { begin: s, sends: [] });
    else if (st.kind === "send") open.get(st.txn)?.sends.push(s);
    else if (st.kind === "commit" || st.kind === "abort") {
      const txn = open.get(st.txn);
      open.delete(st.txn);
      if (!txn) continue;
      const process = processOf.get(st.producer) ?? -1;
      const sends = txn.sends.filter((x) => x.step.kind === "send");
      const micro = (withOffset: boolean) =>
        sends
          .map((x) => {
            const send = x.step as Extract<StepRecord["step"], { kind: "send" }>;
            const k = keyOf.get(send.partition) ?? -1;
            const v = valueIdOf(send.value);
            const offset = typeof x.reply.offset === "number" ? x.reply.offset : null;
            return withOffset && x.real.kind === "ok" && offset !== null
              ? `[:send ${k} [${offset} ${v}]]`
              : `[:send ${k} ${v}]`;
          })
          .join(" ");
      ops.push({ type: "invoke", f: "txn", process, atMs: txn.begin.startMs, value: `[${micro(false)}]` });
      const type = s.real.kind !== "ok" ? "info" : st.kind === "commit" ? "ok" : "fail";
      ops.push({ type, f: "txn", process, atMs: s.endMs, value: `[${micro(type === "ok")}]` });
    }
  }
  // A transaction never ended (the plan stopped): its outcome is unknown.
  for (const [, txn] of open) {
    const st = txn.begin.step as Extract<StepRecord["step"], { kind: "begin" }>;
    const process = processOf.get(st.producer) ?? -1;
    const sends = txn.sends.map((x) => {
      const send = x.step as Extract<StepRecord["step"], { kind: "send" }>;
      return `[:send ${keyOf.get(send.partition) ?? -1} ${valueIdOf(send.value)}]`;
    });
    ops.push({ type: "invoke", f: "txn", process, atMs: txn.begin.startMs, value: `[${sends.join(" ")}]` });
    ops.push({ type: "info", f: "txn", process, atMs: run.steps.at(-1)?.endMs ?? 0, value: `[${sends.join(" ")}]` });
  }

  // The final reading: one poll of every key, by a process of its own.
  const reader = plan.producers.length;
  const endMs = run.steps.at(-1)?.endMs ?? 0;
  const byKey = new Map<number, string[]>();
  for (const r of [...run.finalRead.records].sort((a, b) => a.offset - b.offset)) {
    const k = keyOf.get(r.partition);
    if (k === undefined) continue;
    byKey.set(k, [...(byKey.get(k) ?? []), `[${r.offset} ${valueIdOf(r.value)}]`]);
  }
  const polled = [...byKey]
    .sort(([a], [b]) => a - b)
    .map(([k, records]) => `${k} [${records.join(" ")}]`)
    .join(", ");
  ops.push({ type: "invoke", f: "poll", process: reader, atMs: endMs + 1, value: "[[:poll]]" });
  ops.push({
    type: run.finalRead.complete ? "ok" : "info",
    f: "poll",
    process: reader,
    atMs: endMs + 2,
    value: `[[:poll {${polled}}]]`,
  });

  // Time order (a stable sort keeps an invoke before its own completion at the same millisecond).
  const ordered = ops.map((op, i) => ({ op, i })).sort((a, b) => a.op.atMs - b.op.atMs || a.i - b.i);
  const edn = ordered
    .map(
      ({ op }, index) =>
        `{:index ${index}, :time ${Math.round(op.atMs * 1_000_000)}, :type :${op.type}, :process ${op.process}, :f :${op.f}, :value ${op.value}}`,
    )
    .join("\n");
  return {
    edn: `${edn}\n`,
    keys: Object.fromEntries(partitions.map((p, i) => [i, p])),
    values: Object.fromEntries([...valueIds].map(([v, id]) => [id, v])),
  };
}
