import type { MarkerAppendResult, MarkerInput } from "../broker/log-append.js";
import { Errors } from "../common/errors.js";
import type { PartitionKey } from "../common/types.js";
import { consumerOffsetsPartitionIndex, isConsumerOffsetsPartition } from "../coordinator/group/group-partitioning.js";
import type { BrokerProcess } from "./broker-process.js";
import { MarkerReport, resultOf, type TxnMarkerWrite } from "./marker-report.js";

/**
 * One marker at one partition (KafkaApis.handleWriteTxnMarkersRequest): an acks=all append with
 * origin COORDINATOR through the log's checks, in their order, or the group coordinator's
 * completeTransaction at an offsets partition. `onDone` gets the partition's error once the ISR
 * has the marker (or at once when it was refused); the report tells the trace and the ghost.
 */
export function appendTxnMarker(
  process: BrokerProcess,
  write: TxnMarkerWrite,
  onDone: (errorCode: number) => void,
): void {
  const { partition, marker } = write;
  const report = new MarkerReport(process, write);
  process.replicas.appendToLeader(
    partition,
    process.ctx.config.requestTimeoutMs,
    (log) => {
      const input: MarkerInput = {
        producerId: marker.producerId,
        producerEpoch: marker.producerEpoch,
        result: resultOf(marker),
        coordinatorEpoch: marker.coordinatorEpoch,
        transactionVersion: marker.transactionVersion,
        ghostTxn: write.ghost.ghostTxn,
      };
      // KafkaApis hands __consumer_offsets partitions to the group coordinator (completeTransaction).
      const outcome = isConsumerOffsetsPartition(partition)
        ? completeOffsetsTransaction(process, partition, input)
        : log.appendMarker(input);
      if (outcome.kind === "error") {
        report.rejected(outcome);
        return { waitForOffset: null, value: outcome.errorCode };
      }
      report.appended(outcome, log);
      return { waitForOffset: outcome.batch.lastOffset + 1, value: Errors.NONE };
    },
    (errorCode, judged) => {
      if (judged === null) report.notJudged(errorCode);
      onDone(errorCode !== Errors.NONE ? errorCode : (judged ?? Errors.NONE));
    },
  );
}

/**
 * GroupCoordinatorService.completeTransaction at an offsets partition: the shard decides the
 * producer's pending offsets and writes the marker through the log's checks, with the request's
 * TransactionVersion (see docs/model.md). Not this broker's shard: NOT_LEADER_OR_FOLLOWER, as
 * KafkaApis maps NOT_COORDINATOR, with nothing judged.
 */
function completeOffsetsTransaction(
  process: BrokerProcess,
  partition: PartitionKey,
  input: MarkerInput,
): MarkerAppendResult {
  const lookup = process.groups?.shardFor(consumerOffsetsPartitionIndex(partition));
  if (!lookup || lookup.kind === "error")
    return {
      kind: "error",
      errorCode: Errors.NOT_LEADER_OR_FOLLOWER,
      rule: "unchecked",
      storedEpochBefore: -1,
      storedCoordinatorEpochBefore: -1,
      openTxnBefore: false,
      reason: "no group coordinator for the partition",
    };
  const done = lookup.shard.completeTransaction(input);
  const entries = done.materialized?.entries ?? [];
  process.ctx.sim.emit(process.brokerId, "group.complete-txn", {
    partition,
    pid: input.producerId,
    result: input.result,
    pending: entries.length,
    moved: entries.filter((e) => e.materialized).length,
    tv: done.transactionVersionSeen,
    txn: input.ghostTxn,
  });
  return done.append;
}
