import { PartitionLog } from "../../src/kafka/broker/partition-log.js";
import { type Observation, readPartition } from "../../src/kafka/client/read-committed-consumer.js";
import { unindexedAborts } from "../../src/kafka/cluster-final-state.js";
import type { TransactionResult } from "../../src/kafka/common/types.js";
import { type ReleaseFlags, releaseProfile } from "../../src/kafka/release.js";
import { checkClientView } from "../../src/oracle/client/client-checks.js";
import type { ClientView } from "../../src/oracle/client/client-view.js";
import { GhostLedger } from "../../src/oracle/ghost-ledger.js";
import type { Violation } from "../../src/oracle/violation.js";

/**
 * The smallest world the client-visible checks need: real partition logs (so offsets, markers,
 * the LSO and read_committed filtering are Kafka's), a ghost ledger fed by hand, and polls.
 */
export class ClientWorld {
  readonly ledger = new GhostLedger();
  private readonly logs = new Map<string, PartitionLog>();
  private readonly polls: Observation[] = [];
  private markerId = 1;
  nowMs = 0;

  constructor(private readonly flags: Partial<ReleaseFlags> = {}) {}

  log(partition: string): PartitionLog {
    let log = this.logs.get(partition);
    if (!log) {
      // A 4.1 leader (legacy marker rule), so that stale markers land as they do in the gap.
      const profile = releaseProfile("4.1", this.flags);
      log = new PartitionLog(partition, () => profile.flags);
      this.logs.set(partition, log);
    }
    return log;
  }

  at(ms: number): this {
    this.nowMs = ms;
    return this;
  }

  /** Producer `pid` writes record `index` of `ghost` to `partition` (replicated at once). */
  write(ghost: string, partition: string, index: number, opts: { pid?: number; epoch?: number; seq: number }): number {
    const pid = opts.pid ?? 1000;
    const epoch = opts.epoch ?? 1;
    const log = this.log(partition);
    const guard = log.maybeStartTransactionVerification(pid, opts.seq, epoch, true);
    const r = log.appendData({
      producerId: pid,
      producerEpoch: epoch,
      baseSequence: opts.seq,
      isTransactional: true,
      values: [`${ghost}/${index}`],
      ghostTxn: ghost,
      verificationGuard: guard,
    });
    if (r.kind !== "appended") throw new Error(`append refused: ${JSON.stringify(r)}`);
    log.onHighWatermarkUpdated(log.logEndOffset);
    this.ledger.batchAppended({ broker: "broker-0", partition, batch: r.batch, atMs: this.nowMs });
    return r.batch.baseOffset;
  }

  /** A marker issued for `issuedFor` lands at `partition` and closes whatever `pid` has open there. */
  marker(
    partition: string,
    issuedFor: string,
    result: TransactionResult,
    opts: { pid?: number; epoch?: number } = {},
  ): void {
    const pid = opts.pid ?? 1000;
    const epoch = opts.epoch ?? 2;
    const log = this.log(partition);
    const r = log.appendMarker({
      producerId: pid,
      producerEpoch: epoch,
      result,
      coordinatorEpoch: 1,
      transactionVersion: 2,
      ghostTxn: issuedFor,
    });
    if (r.kind !== "appended") throw new Error(`marker refused: ${r.reason}`);
    log.onHighWatermarkUpdated(log.logEndOffset);
    const id = this.markerId++;
    this.ledger.markerApplied({
      markerId: id,
      resend: 0,
      ghostTxn: issuedFor,
      transactionalId: "txn-0",
      broker: "broker-0",
      brokerRelease: "4.1",
      partition,
      requestVersion: 2,
      correlationId: id,
      transactionVersionSeen: 2,
      producerId: pid,
      markerEpoch: epoch,
      storedEpochBefore: r.storedEpochBefore,
      openTxnBefore: r.openTxnBefore,
      coordinatorEpoch: 1,
      storedCoordinatorEpochBefore: r.storedCoordinatorEpochBefore,
      result,
      rule: r.rule,
      errorCode: 0,
      markerOffset: r.batch.baseOffset,
      completed: r.completed,
      closedBatches: r.completed ? log.dataBatchesOf(pid, r.completed.firstOffset, r.completed.lastOffset) : [],
      atMs: this.nowMs,
    });
  }

  /** The coordinator made PrepareCommit/PrepareAbort for `ghost` durable, on the EndTxn of `requestedFor`. */
  decide(
    ghost: string,
    result: TransactionResult,
    opts: { requestedFor?: string | null; initiator?: "client" | "coordinator"; partitions?: string[] } = {},
  ): void {
    const initiator = opts.initiator ?? "client";
    this.ledger.txnDecided({
      ghostTxn: ghost,
      transactionalId: "txn-0",
      producerId: 1000,
      producerEpoch: 2,
      result,
      coordinator: "tc-0",
      coordinatorEpoch: 1,
      transactionVersion: 2,
      initiator,
      requestedFor: opts.requestedFor === undefined ? (initiator === "client" ? ghost : null) : opts.requestedFor,
      partitions: opts.partitions ?? ["orders-0"],
      atMs: this.nowMs,
    });
  }

  /** What the producer was told. */
  outcome(
    ghost: string,
    outcome: "committed" | "aborted" | "unknown",
    detail = outcome === "unknown"
      ? "EndTxn: PRODUCER_FENCED"
      : `EndTxn(${outcome === "committed" ? "COMMIT" : "ABORT"}) acknowledged`,
  ): void {
    this.ledger.producerOutcome({
      ghostTxn: ghost,
      producer: ghost.split(".")[0] as string,
      outcome,
      detail,
      atMs: this.nowMs,
    });
  }

  /** Consumer c0 reads `partition` from offset 0 now, as read_committed (or past the LSO). */
  poll(partition: string, opts: { pastLso?: boolean } = {}): void {
    const seen = new Set(this.polls.filter((o) => o.partition === partition).map((o) => o.offset));
    for (const r of readPartition(this.log(partition), {
      filterAborted: true,
      readUncommittedBound: opts.pastLso ?? false,
    }).records) {
      if (!seen.has(r.offset)) this.polls.push({ ...r, atMs: this.nowMs });
    }
  }

  view(): ClientView {
    const finalReads = [...this.logs.values()].map((log) => {
      const { records, readBound } = readPartition(log);
      return {
        partition: log.partition,
        broker: "broker-0",
        brokerRelease: "4.1" as const,
        readBound,
        highWatermark: log.highWatermark,
        records,
        unindexedAborts: unindexedAborts(log),
      };
    });
    return { finalReads, consumers: [{ consumer: "c0", observations: this.polls }], endMs: this.nowMs + 1000 };
  }

  check(): Violation[] {
    return checkClientView(this.ledger, this.view());
  }
}
