import type { MarkerEpochRule, PartitionLog } from "../broker/partition-log.js";
import type { MarkerAppendResult } from "../broker/log-append.js";
import { Errors } from "../common/errors.js";
import type { PartitionKey, TransactionResult } from "../common/types.js";
import type { MarkerOutcome } from "../ghost.js";
import type { MarkerGhost } from "../protocol.js";
import type { WritableTxnMarker } from "../wire/write-txn-markers.js";
import type { BrokerProcess } from "./broker-process.js";

/** One marker of a WriteTxnMarkers request, to be written at one partition. */
export interface TxnMarkerWrite {
  readonly partition: PartitionKey;
  readonly marker: WritableTxnMarker;
  /** The ghost side-car of the marker (not Kafka): which transaction attempt and which copy it is. */
  readonly ghost: MarkerGhost;
  /** The request's version. */
  readonly version: number;
  /** Network correlation id of the request copy that carried it (same for a network duplicate). */
  readonly correlationId: number;
}

/** What the leader's checks made of one marker at one partition. */
type MarkerJudgement = Pick<
  MarkerOutcome,
  | "storedEpochBefore"
  | "storedCoordinatorEpochBefore"
  | "openTxnBefore"
  | "rule"
  | "errorCode"
  | "markerOffset"
  | "completed"
  | "closedBatches"
> & { rule: MarkerEpochRule };

/**
 * The trace events and the ghost's record of one marker at one partition, kept out of the way of
 * Kafka's behaviour (txn-marker-append.ts). Every marker event starts with the marker and how the
 * leader judged it and ends with which copy it was (the fields are written out: object spreads
 * here cost more than the append itself).
 */
export class MarkerReport {
  private readonly leaderEpoch: number;

  constructor(
    private readonly process: BrokerProcess,
    private readonly write: TxnMarkerWrite,
  ) {
    // The leader's epoch when the marker arrived (-1: this broker does not lead the partition).
    this.leaderEpoch = process.replicas.partitions.get(write.partition)?.leaderEpoch ?? -1;
  }

  /** The leader's checks refused the marker: nothing appended. */
  rejected(outcome: Extract<MarkerAppendResult, { kind: "error" }>): void {
    const { partition, marker, ghost, version: v, correlationId: corr } = this.write;
    const { producerId: pid, producerEpoch: epoch, coordinatorEpoch: ce, transactionVersion: tv } = marker;
    const { storedEpochBefore: stored, rule } = outcome;
    const { ghostTxn: txn, markerId, resend } = ghost;
    // biome-ignore format: one line per part of the event
    this.process.ctx.sim.emit(this.process.brokerId, "marker.rejected", {
      partition, pid, epoch, stored, ce, tv, rule,
      error: outcome.errorCode,
      txn, marker: markerId, resend, v, corr,
    });
    this.judged({
      storedEpochBefore: outcome.storedEpochBefore,
      storedCoordinatorEpochBefore: outcome.storedCoordinatorEpochBefore,
      openTxnBefore: outcome.openTxnBefore,
      rule: outcome.rule,
      errorCode: outcome.errorCode,
      markerOffset: null,
      completed: null,
      closedBatches: [],
    });
  }

  /** The marker is in the leader's log; `log` gives the producer's data batches it closed. */
  appended(outcome: Extract<MarkerAppendResult, { kind: "appended" }>, log: PartitionLog): void {
    const { partition, marker, ghost, version: v, correlationId: corr } = this.write;
    const { producerId: pid, producerEpoch: epoch, coordinatorEpoch: ce, transactionVersion: tv } = marker;
    const { storedEpochBefore: stored, rule } = outcome;
    const { ghostTxn: txn, markerId, resend } = ghost;
    const completed = outcome.completed;
    const result = resultOf(marker);
    // biome-ignore format: one line per part of the event
    this.process.ctx.sim.emit(this.process.brokerId, "marker.append", {
      partition, pid, epoch, stored, ce, tv, rule,
      result, offset: outcome.batch.baseOffset, closedFrom: completed ? completed.firstOffset : -1,
      txn, marker: markerId, resend, v, corr,
    });
    this.judged({
      storedEpochBefore: outcome.storedEpochBefore,
      storedCoordinatorEpochBefore: outcome.storedCoordinatorEpochBefore,
      openTxnBefore: outcome.openTxnBefore,
      rule: outcome.rule,
      errorCode: Errors.NONE,
      markerOffset: outcome.batch.baseOffset,
      completed,
      closedBatches: completed ? log.dataBatchesOf(marker.producerId, completed.firstOffset, completed.lastOffset) : [],
    });
  }

  /** Refused before the log saw it (not the leader, too few in-sync replicas): the leader judged nothing. */
  notJudged(errorCode: number): void {
    this.judged({
      storedEpochBefore: -1,
      storedCoordinatorEpochBefore: -1,
      openTxnBefore: false,
      rule: "unchecked",
      errorCode,
      markerOffset: null,
      completed: null,
      closedBatches: [],
    });
  }

  private judged(judged: MarkerJudgement): void {
    const { process, write, leaderEpoch } = this;
    process.ctx.ghost.markerApplied(markerOutcome({ process, write, leaderEpoch, judged }));
  }
}

/** The transaction result a marker writes. */
export function resultOf(marker: WritableTxnMarker): TransactionResult {
  return marker.transactionResult ? "COMMIT" : "ABORT";
}

/** What the ghost's record of one marker is made of. */
interface MarkerOutcomeParts {
  readonly process: BrokerProcess;
  readonly write: TxnMarkerWrite;
  readonly leaderEpoch: number;
  readonly judged: MarkerJudgement;
}

/** The ghost's record of one marker at one partition, every field written out in one literal (spreading a shared part made V8 build it slowly). */
function markerOutcome(parts: MarkerOutcomeParts): MarkerOutcome {
  const { process, write, leaderEpoch, judged } = parts;
  const { marker, ghost } = write;
  return {
    markerId: ghost.markerId,
    resend: ghost.resend,
    ghostTxn: ghost.ghostTxn,
    transactionalId: ghost.transactionalId,
    broker: process.brokerId,
    brokerRelease: process.release.name,
    partition: write.partition,
    leaderEpoch,
    requestVersion: write.version,
    correlationId: write.correlationId,
    transactionVersionSeen: marker.transactionVersion,
    producerId: marker.producerId,
    markerEpoch: marker.producerEpoch,
    coordinatorEpoch: marker.coordinatorEpoch,
    result: resultOf(marker),
    atMs: process.ctx.sim.nowMs,
    storedEpochBefore: judged.storedEpochBefore,
    storedCoordinatorEpochBefore: judged.storedCoordinatorEpochBefore,
    openTxnBefore: judged.openTxnBefore,
    rule: judged.rule,
    errorCode: judged.errorCode,
    markerOffset: judged.markerOffset,
    completed: judged.completed,
    closedBatches: judged.closedBatches,
  };
}
