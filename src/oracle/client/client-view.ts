import type { Observation } from "../../kafka/client/read-committed-consumer.js";
import type { FinalPartitionRead } from "../../kafka/cluster-final-state.js";
import type { PartitionKey } from "../../kafka/common/types.js";

/**
 * What clients saw, the black-box side of the oracle: the final read of every partition after the
 * quiet period, and every record each read_committed consumer polled during the run.
 */
export interface ClientView {
  finalReads: readonly FinalPartitionRead[];
  consumers: readonly { consumer: string; observations: readonly Observation[] }[];
  endMs: number;
}

/** A record value `${ghostTxn}/${index}`, ghostTxn `${instance}.t${n}` (instance `p0` or `p0#2`). */
export interface RecordIdentity {
  ghostTxn: string;
  instance: string;
  txnNumber: number;
  index: number;
}

const VALUE_PATTERN = /^(([^/.]+)\.t(\d+))\/(\d+)$/;

/** Parsed values: the same values ("p0.t3/1") come back in every seed, and each is parsed several times. */
const MAX_REMEMBERED_VALUES = 100_000;
const identities = new Map<string, Readonly<RecordIdentity> | null>();

/** Who wrote a record, read from its value alone (as a black-box checker would). Null if foreign. */
export function identifyRecord(value: string): Readonly<RecordIdentity> | null {
  let identity = identities.get(value);
  if (identity === undefined) {
    const m = VALUE_PATTERN.exec(value);
    identity = m
      ? Object.freeze({
          ghostTxn: m[1] as string,
          instance: m[2] as string,
          txnNumber: Number(m[3]),
          index: Number(m[4]),
        })
      : null;
    if (identities.size < MAX_REMEMBERED_VALUES) identities.set(value, identity);
  }
  return identity;
}

/** Where a record sits: partition and offset. */
export interface RecordPlace {
  partition: PartitionKey;
  offset: number;
}

export function comparePlaces(a: RecordPlace, b: RecordPlace): number {
  return a.partition === b.partition ? a.offset - b.offset : a.partition < b.partition ? -1 : 1;
}

/** "orders-2 offsets 4..5, orders-3 offset 1": places grouped by partition, consecutive offsets as ranges. */
export function describePlaces(places: readonly RecordPlace[]): string {
  const byPartition = new Map<PartitionKey, number[]>();
  for (const p of [...places].sort(comparePlaces)) {
    const list = byPartition.get(p.partition) ?? [];
    if (list[list.length - 1] !== p.offset) list.push(p.offset);
    byPartition.set(p.partition, list);
  }
  const parts: string[] = [];
  for (const [partition, offsets] of byPartition) {
    const ranges: string[] = [];
    let start = offsets[0] as number;
    let prev = start;
    for (const o of [...offsets.slice(1), Number.NaN]) {
      if (o === prev + 1) {
        prev = o;
        continue;
      }
      ranges.push(start === prev ? `${start}` : `${start}..${prev}`);
      start = o;
      prev = o;
    }
    const plural = offsets.length > 1 ? "offsets" : "offset";
    parts.push(`${partition} ${plural} ${ranges.join(", ")}`);
  }
  return parts.join(" and ");
}

/** A consumer's poll of one record. */
export interface PolledRecord {
  consumer: string;
  observation: Observation;
}

/** Every poll of every consumer, grouped by the transaction that wrote the record, in poll order. */
export function pollsByTransaction(view: ClientView): Map<string, PolledRecord[]> {
  const out = new Map<string, PolledRecord[]>();
  for (const c of view.consumers) {
    for (const o of c.observations) {
      const ghost = identifyRecord(o.value)?.ghostTxn;
      if (!ghost) continue;
      const list = out.get(ghost) ?? [];
      list.push({ consumer: c.consumer, observation: o });
      out.set(ghost, list);
    }
  }
  for (const list of out.values()) list.sort((a, b) => a.observation.atMs - b.observation.atMs);
  return out;
}

/** The leader of each partition at the end, for placing client-visible violations. */
export function leadersOf(
  view: ClientView,
): Map<PartitionKey, { broker: string; brokerRelease: string; readBound: number }> {
  return new Map(
    view.finalReads.map((r) => [
      r.partition,
      { broker: r.broker, brokerRelease: r.brokerRelease, readBound: r.readBound },
    ]),
  );
}
