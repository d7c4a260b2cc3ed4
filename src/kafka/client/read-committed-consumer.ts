import type { Stream } from "../../sim/choice-tape.js";
import { BoundExceeded } from "../../sim/bounds.js";
import { ConnectionPool } from "../../sim/network.js";
import type { AbortedTxn, LogBatch, PartitionLog } from "../broker/partition-log.js";
import { Errors } from "../common/errors.js";
import type { PartitionKey } from "../common/types.js";
import type { ClusterContext } from "../cluster-context.js";
import type { KafkaRequest, KafkaResponse } from "../protocol.js";

export interface ConsumedRecord {
  partition: PartitionKey;
  offset: number;
  value: string;
  producerId: number;
  ghostTxn: string | null;
}

/**
 * CompletedFetch with READ_COMMITTED: aborted transactions whose first offset is at or below a
 * batch's last offset mark that producer as aborted; an ABORT control batch clears it; data batches
 * of aborted producers are skipped; control batches are never returned. The broker never filters.
 */
export function filterReadCommitted(
  partition: PartitionKey,
  batches: readonly LogBatch[],
  abortedTransactions: readonly AbortedTxn[],
  filterAborted = true,
): ConsumedRecord[] {
  const aborted = [...abortedTransactions].sort((a, b) => a.firstOffset - b.firstOffset);
  const abortedProducers = new Set<number>();
  let next = 0;
  const out: ConsumedRecord[] = [];
  for (const batch of batches) {
    if (batch.isTransactional && filterAborted) {
      while (next < aborted.length && (aborted[next] as AbortedTxn).firstOffset <= batch.lastOffset) {
        abortedProducers.add((aborted[next] as AbortedTxn).producerId);
        next++;
      }
      if (batch.control) {
        if (batch.control.type === "ABORT") abortedProducers.delete(batch.producerId);
        continue;
      }
      if (abortedProducers.has(batch.producerId)) continue;
    }
    if (batch.control) continue;
    batch.values.forEach((value, i) => {
      out.push({
        partition,
        offset: batch.baseOffset + i,
        value,
        producerId: batch.producerId,
        ghostTxn: batch.ghostTxn,
      });
    });
  }
  return out;
}

/** One Fetch from offset 0 with no batch limit, filtered as CompletedFetch does. */
export function readPartition(
  log: PartitionLog,
  filterAborted = true,
  readUncommittedBound = false,
): { records: ConsumedRecord[]; readBound: number } {
  const read = log.read(0, readUncommittedBound ? "READ_UNCOMMITTED" : "READ_COMMITTED", Number.MAX_SAFE_INTEGER);
  return {
    records: filterReadCommitted(log.partition, read.batches, read.abortedTransactions, filterAborted),
    readBound: read.upperBound,
  };
}

/** A record as a consumer saw it during the run, with the virtual time of the poll. */
export interface Observation extends ConsumedRecord {
  atMs: number;
}

/** Bound on observations kept per consumer (a run that reads more is too big to check). */
const MAX_OBSERVATIONS = 200_000;

/**
 * A read_committed consumer that polls its partitions through the network during the run and
 * records what it saw and when (for premature-read checks).
 */
export class ReadCommittedConsumer {
  private readonly positions = new Map<PartitionKey, number>();
  private readonly connections: ConnectionPool<KafkaRequest, KafkaResponse>;
  readonly observations: Observation[] = [];
  private stopped = false;
  private readonly pollStream: Stream;

  constructor(
    private readonly ctx: ClusterContext,
    readonly name: string,
    private readonly partitions: readonly PartitionKey[],
    private readonly pollIntervalMs: number,
    private readonly requestTimeoutMs: number,
    private readonly filterAborted: boolean,
    private readonly readUncommittedBound: boolean,
  ) {
    for (const p of partitions) this.positions.set(p, 0);
    this.connections = new ConnectionPool(ctx.net, name);
    this.pollStream = ctx.choices.stream(`consumer:${name}`);
  }

  start(): void {
    if (this.pollIntervalMs <= 0) return;
    this.ctx.sim.schedule(this.pollIntervalMs, () => this.pollAll());
  }

  stop(): void {
    this.stopped = true;
  }

  /**
   * The oracle's final read (after the quiet period): everything this consumer's Fetch would return
   * from offset 0, read straight from the leader's log instead of through the network.
   */
  readAll(log: PartitionLog): { records: ConsumedRecord[]; readBound: number } {
    return readPartition(log, this.filterAborted, this.readUncommittedBound);
  }

  private pollAll(): void {
    // Always true in seeded runs; a shrunk tape that ends here stops the polling.
    if (this.stopped || !this.pollStream.chance(1_000_000)) return;
    for (const p of this.partitions) this.fetch(p);
    this.ctx.sim.schedule(this.pollIntervalMs, () => this.pollAll());
  }

  private fetch(partition: PartitionKey): void {
    const leader = this.ctx.metadata.leaderOf(partition);
    if (leader === null) return;
    const conn = this.connections.to(leader);
    if (this.ctx.net.inFlightCount(conn) > 4) return;
    const fetchOffset = this.positions.get(partition) ?? 0;
    this.ctx.net.request(
      conn,
      {
        api: "Fetch",
        partition,
        fetchOffset,
        isolation: this.readUncommittedBound ? "READ_UNCOMMITTED" : "READ_COMMITTED",
        maxBatches: 50,
      },
      this.requestTimeoutMs,
      (r) => {
        if (r.kind !== "response") return;
        const body = r.body as KafkaResponse;
        if (body.api !== "Fetch" || body.errorCode !== Errors.NONE) return;
        if ((this.positions.get(partition) ?? 0) !== fetchOffset) return; // a stale response
        if (body.batches.length === 0) return; // nothing new: no record, no position change, no event
        const records = filterReadCommitted(partition, body.batches, body.abortedTransactions, this.filterAborted);
        const atMs = this.ctx.sim.nowMs;
        for (const r of records) {
          // A consumer that silently forgot what it read would make the client checks wrong: a bound, reported.
          if (this.observations.length >= MAX_OBSERVATIONS)
            throw new BoundExceeded(`records observed by ${this.name}`, MAX_OBSERVATIONS);
          this.observations.push({
            partition: r.partition,
            offset: r.offset,
            value: r.value,
            producerId: r.producerId,
            ghostTxn: r.ghostTxn,
            atMs,
          });
        }
        const last = body.batches[body.batches.length - 1];
        if (last) this.positions.set(partition, last.lastOffset + 1);
        if (records.length > 0)
          this.ctx.sim.emit(this.name, "consumer.poll", {
            partition,
            records: records.length,
            upTo: last ? last.lastOffset : -1,
          });
      },
    );
  }
}
