import { produceErrorForVerification } from "../broker/add-partitions-to-txn-manager.js";
import type { PartitionLog } from "../broker/partition-log.js";
import { SENTINEL_GUARD } from "../broker/producer-state-entry.js";
import { Errors } from "../common/errors.js";
import { NO_SEQUENCE, type PartitionKey } from "../common/types.js";
import { consumerOffsetsPartitionKey } from "../coordinator/group/group-partitioning.js";
import type { GroupCoordinatorShard } from "../coordinator/group/group-coordinator-shard.js";
import type { GroupRequest } from "../group-protocol.js";
import type { BrokerProcess, Inbound } from "./broker-process.js";
import { groupAnswered, writeGroupRecords } from "./group-write.js";

type TxnOffsetCommitRequest = Extract<GroupRequest, { api: "TxnOffsetCommit" }>;

/**
 * TxnOffsetCommit: with KIP-890 verification (KAFKA-15449, 3.7+) the transaction coordinator is
 * asked first (a TV2 v5 request adds the offsets partition to the transaction), then the shard
 * validates and writes together (KAFKA-15784's order). Under txnOffsetCommitUnverified (3.6) the
 * shard writes at once, with no guard; under txnOffsetValidateBeforeVerify (3.7 before KAFKA-15784)
 * the shard validates at the request's arrival and writes after the verification, unvalidated.
 */
export function handleTxnOffsetCommitRequest(
  process: BrokerProcess,
  request: Inbound,
  body: TxnOffsetCommitRequest,
  shard: GroupCoordinatorShard,
): void {
  const key = consumerOffsetsPartitionKey(shard.partitionIndex);
  const flags = process.release.flags;
  // KAFKA-15449's bug switch (3.6): the group coordinator's path skipped the verification.
  if (!flags.transactionPartitionVerification || flags.txnOffsetCommitUnverified)
    return writeTxnOffsets(process, request, body, { key, guard: SENTINEL_GUARD, validatedBefore: false });
  const log = process.logs.get(key) as PartitionLog;
  // UnifiedLog.maybeStartTransactionVerification refuses a stale epoch first (KAFKA-18042), on the
  // group coordinator's path too (CoordinatorPartitionWriter -> ReplicaManager); the error goes back
  // as it is (CoordinatorOperationExceptionHelper maps only coordinator-side errors).
  const stale = log.staleEpochBeforeVerification(body.producerId, body.producerEpoch);
  if (stale !== null) {
    emitTxnOffsetCommit(process, key, body, Errors.INVALID_PRODUCER_EPOCH);
    return request.respond({ api: "TxnOffsetCommit", errorCode: Errors.INVALID_PRODUCER_EPOCH });
  }
  const supportsEpochBump = body.version >= 5;
  const guard = log.maybeStartTransactionVerification(
    body.producerId,
    NO_SEQUENCE,
    body.producerEpoch,
    supportsEpochBump,
  );
  if (guard === SENTINEL_GUARD) return writeTxnOffsets(process, request, body, { key, guard, validatedBefore: false });
  // KAFKA-15784's bug switch: GroupCoordinator.doTxnCommitOffsets validated under the group lock
  // before ReplicaManager.appendRecords started the asynchronous verification.
  const validatedBefore = flags.txnOffsetValidateBeforeVerify;
  if (validatedBefore) {
    const invalid = shard.validateTransactionalOffsetCommit(body);
    if (invalid !== Errors.NONE) {
      emitTxnOffsetCommit(process, key, body, invalid);
      return request.respond({ api: "TxnOffsetCommit", errorCode: invalid });
    }
    process.ctx.sim.emit(process.brokerId, "group.txn-offsets-validated", {
      group: body.groupId,
      member: body.memberId,
      gen: body.generationId,
      groupGen: shard.group(body.groupId).generationId,
      txn: body.ghostTxn,
    });
  }
  const addPartition = supportsEpochBump && flags.supportsTransactionVersion2;
  process.verifier.verify(
    {
      api: "AddPartitionsToTxn",
      version: addPartition ? 5 : 4,
      transactionalId: body.transactionalId,
      producerId: body.producerId,
      producerEpoch: body.producerEpoch,
      partitions: [key],
      verifyOnly: !addPartition,
      ghostTxn: body.ghostTxn,
    },
    (errorCode) => {
      const mapped = txnOffsetCommitErrorForVerification(errorCode);
      if (mapped !== Errors.NONE) return request.respond({ api: "TxnOffsetCommit", errorCode: mapped });
      writeTxnOffsets(process, request, body, { key, guard, validatedBefore });
    },
  );
}

/** Where and how the shard writes a TxnOffsetCommit. */
interface TxnOffsetsWrite {
  /** The group's __consumer_offsets partition. */
  readonly key: PartitionKey;
  /** The verification guard (SENTINEL_GUARD: no verification). */
  readonly guard: number;
  /** The shard validated the request at its arrival (txnOffsetValidateBeforeVerify) and writes unvalidated. */
  readonly validatedBefore: boolean;
}

/** The shard's write of a TxnOffsetCommit (validated first unless `validatedBefore`), through the leader's append path. */
function writeTxnOffsets(
  process: BrokerProcess,
  request: Inbound,
  body: TxnOffsetCommitRequest,
  write: TxnOffsetsWrite,
): void {
  const { key, guard, validatedBefore } = write;
  writeGroupRecords(process, key, request, "TxnOffsetCommit", () => {
    const lookup = process.groups?.shardForGroup(body.groupId);
    if (!lookup || lookup.kind === "error") return { api: "TxnOffsetCommit", errorCode: Errors.NOT_COORDINATOR };
    const input = { ...body, verificationGuard: guard };
    const errorCode = lookup.shard.commitTransactionalOffsets(input, validatedBefore);
    emitTxnOffsetCommit(process, key, body, errorCode);
    if (errorCode === Errors.NONE)
      process.ctx.sim.emit(process.brokerId, "group.txn-offsets", {
        group: body.groupId,
        member: body.memberId,
        gen: body.generationId,
        pid: body.producerId,
        epoch: body.producerEpoch,
        offsets: body.offsets.map((o) => `${o.partition}@${o.offset}`).join(","),
        txn: body.ghostTxn,
      });
    return { api: "TxnOffsetCommit", errorCode };
  });
}

function emitTxnOffsetCommit(
  process: BrokerProcess,
  key: PartitionKey,
  body: TxnOffsetCommitRequest,
  errorCode: number,
): void {
  const { groupId, memberId, generationId, producerId, ghostTxn } = body;
  groupAnswered(process, {
    partition: key,
    api: body.api,
    groupId,
    memberId,
    generationId,
    errorCode,
    producerId,
    ghostTxn,
  });
}

/** The Produce version whose mapping of a verification error a TxnOffsetCommit's follows (TRANSACTION_ABORTABLE stays). */
const TXN_OFFSET_COMMIT_AS_PRODUCE_VERSION = 11;

/**
 * A TxnOffsetCommit's verification answer as the group coordinator returns it: a fence stays a fence,
 * the transient ones become COORDINATOR_NOT_AVAILABLE (retriable for the producer); simplified.
 */
function txnOffsetCommitErrorForVerification(errorCode: number): number {
  const asProduce = produceErrorForVerification(errorCode, TXN_OFFSET_COMMIT_AS_PRODUCE_VERSION);
  return asProduce === Errors.NOT_ENOUGH_REPLICAS ? Errors.COORDINATOR_NOT_AVAILABLE : asProduce;
}
