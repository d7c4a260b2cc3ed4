import type { PartitionLog } from "../../broker/partition-log.js";
import type { MarkerAppendResult } from "../../broker/log-append.js";
import type { LogBatch } from "../../broker/log-batch.js";
import { Errors } from "../../common/errors.js";
import type { PartitionKey, TransactionResult } from "../../common/types.js";
import { ClassicGroup, type ClassicGroupConfig, type JoinResult, type SyncResult } from "./classic-group.js";
import {
  type FetchedOffset,
  type MaterializedOffsets,
  type OffsetAndMetadata,
  OffsetMetadataManager,
} from "./offset-metadata-manager.js";

/** How this broker's group coordinator treats transactional offsets (per release). */
export interface GroupCoordinatorOptions {
  /**
   * KIP-447 (Kafka 2.5+): TxnOffsetCommit carries the generation, member id and group.instance.id
   * and is validated like OffsetCommit. Off models the pre-2.5 gap (BUG-ZOO Z36's
   * txnOffsetCommitNoGenerationCheck): a fenced member's commit is accepted.
   */
  readonly txnOffsetCommitGenerationCheck: boolean;
  /**
   * Whether the WriteTxnMarkers TransactionVersion reaches the offsets partition's producer-state
   * check. Kafka passes it (KafkaApis -> GroupCoordinator.completeTransaction ->
   * CoordinatorRuntime.scheduleTransactionCompletion(..., transactionVersion) -> PartitionWriter.append
   * with it; see docs/model.md, "Markers on __consumer_offsets"), so the leader's release decides the
   * rule, as at a data partition. Off: the marker is judged by the legacy rule (the reading in which
   * the group coordinator's path drops it).
   */
  readonly markerTransactionVersionReachesLog: boolean;
  /** offset.metadata.max.bytes (absent: Kafka's default, 4096): a longer metadata string is refused per partition. */
  readonly offsetMetadataMaxBytes?: number;
  /**
   * KAFKA-16371's bug switch (the classic coordinator before 3.7.1): partitions refused for their
   * metadata are still staged as pending (see ReleaseFlags.pendingOffsetsKeepRejectedPartitions).
   */
  readonly pendingOffsetsKeepRejectedPartitions?: boolean;
  /** Ghost (not Kafka): told of each TxnOffsetCommit written, with the group as it stood (the oracle's zombie-commit check). */
  readonly onTxnOffsetsAccepted?: (accepted: AcceptedTxnOffsets) => void;
}

/** A TxnOffsetCommit the coordinator wrote, and the group's generation and membership at that moment. */
export interface AcceptedTxnOffsets {
  readonly ghostTxn: string | null;
  readonly transactionalId: string;
  readonly groupId: string;
  readonly memberId: string;
  readonly generationId: number;
  /** The group's generation when the commit was written (-1: unknown group). */
  readonly groupGenerationId: number;
  readonly memberKnown: boolean;
  readonly offsets: readonly { partition: PartitionKey; offset: number }[];
  readonly atOffset: number;
}

export const DEFAULT_GROUP_COORDINATOR_OPTIONS: GroupCoordinatorOptions = {
  txnOffsetCommitGenerationCheck: true,
  markerTransactionVersionReachesLog: true,
};

/** Kafka's default offset.metadata.max.bytes (OffsetConfig.DEFAULT_MAX_METADATA_SIZE). */
export const DEFAULT_OFFSET_METADATA_MAX_BYTES = 4096;

/** One partition's offset in an OffsetCommit or TxnOffsetCommit, with the application's metadata string (absent: none). */
export interface CommittedOffset {
  readonly partition: PartitionKey;
  readonly offset: number;
  readonly metadata?: string;
}

/** Who is committing: the group metadata a consumer hands to sendOffsetsToTransaction (ConsumerGroupMetadata). */
export interface CommitterMetadata {
  readonly groupId: string;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly generationId: number;
}

export interface TxnOffsetCommitInput extends CommitterMetadata {
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly offsets: readonly CommittedOffset[];
  /** The guard the broker's verification with the transaction coordinator produced (KAFKA-15449). */
  readonly verificationGuard: number;
  readonly ghostTxn: string | null;
}

export interface TxnMarkerInput {
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly coordinatorEpoch: number;
  readonly result: TransactionResult;
  /** The TransactionVersion of the WriteTxnMarkers request (0 for v1). */
  readonly transactionVersion: number;
  readonly ghostTxn: string | null;
}

export interface CompleteTransactionResult {
  readonly errorCode: number;
  /** How the offsets partition's log judged the marker. */
  readonly append: MarkerAppendResult;
  /** The pending offsets the marker decided (null when the write failed and the change was reverted). */
  readonly materialized: MaterializedOffsets | null;
  /** The TransactionVersion the log's producer-state check saw. */
  readonly transactionVersionSeen: number;
}

/**
 * GroupCoordinatorShard: the group coordinator of one __consumer_offsets partition this broker
 * leads, over the partition's log. Classic groups (ClassicGroup), committed and pending
 * transactional offsets (OffsetMetadataManager), and the markers of transactions that committed
 * offsets here (CoordinatorRuntime's CoordinatorCompleteTransactionEvent). Every write goes
 * through the log: a transactional offset commit through UnifiedLog's producer-state checks
 * (origin COORDINATOR), as CoordinatorPartitionWriter.append does.
 */
export class GroupCoordinatorShard {
  readonly groups = new Map<string, ClassicGroup>();
  readonly offsets = new OffsetMetadataManager();

  constructor(
    readonly partitionIndex: number,
    private readonly log: PartitionLog,
    private readonly groupConfig: ClassicGroupConfig,
    readonly options: GroupCoordinatorOptions = DEFAULT_GROUP_COORDINATOR_OPTIONS,
  ) {}

  /** CoordinatorLoaderImpl: a new leader replays the partition's log to its end, in order. */
  static load(
    partitionIndex: number,
    log: PartitionLog,
    groupConfig: ClassicGroupConfig,
    options: GroupCoordinatorOptions = DEFAULT_GROUP_COORDINATOR_OPTIONS,
  ): GroupCoordinatorShard {
    const shard = new GroupCoordinatorShard(partitionIndex, log, groupConfig, options);
    for (const batch of log.batches) shard.replay(batch);
    return shard;
  }

  /** GroupCoordinatorShard.replay / replayEndTransactionMarker for one loaded batch. */
  private replay(batch: LogBatch): void {
    if (batch.control) {
      this.offsets.replayEndTransactionMarker(batch.producerId, batch.control.type);
      return;
    }
    if (batch.groupMetadata) {
      const g = batch.groupMetadata;
      this.group(g.groupId).restore(g.generationId);
    }
    for (const record of batch.offsetCommits ?? []) {
      const value = {
        offset: record.offset,
        recordOffset: batch.baseOffset,
        generationId: record.generationId,
        memberId: record.memberId,
        producerId: batch.isTransactional ? batch.producerId : -1,
        ghostTxn: batch.ghostTxn,
      };
      if (batch.isTransactional) this.offsets.replayTransactionalOffsetCommit(record.groupId, record.partition, value);
      else this.offsets.replayOffsetCommit(record.groupId, record.partition, value);
    }
  }

  /** The group, created empty on first use (getOrMaybeCreateClassicGroup). */
  group(groupId: string): ClassicGroup {
    let group = this.groups.get(groupId);
    if (!group) {
      group = new ClassicGroup(groupId, this.groupConfig);
      this.groups.set(groupId, group);
    }
    return group;
  }

  // ------------------------------------------------------------------ membership

  joinGroup(groupId: string, memberId: string, groupInstanceId: string | null, nowMs: number): JoinResult {
    return this.persistingGeneration(groupId, (g) => g.join(memberId, groupInstanceId, nowMs));
  }

  syncGroup(
    groupId: string,
    memberId: string,
    groupInstanceId: string | null,
    generationId: number,
    nowMs: number,
  ): SyncResult {
    return this.group(groupId).sync(memberId, groupInstanceId, generationId, nowMs);
  }

  heartbeat(
    groupId: string,
    memberId: string,
    groupInstanceId: string | null,
    generationId: number,
    nowMs: number,
  ): number {
    return this.group(groupId).heartbeat(memberId, groupInstanceId, generationId, nowMs);
  }

  leaveGroup(groupId: string, memberId: string, groupInstanceId: string | null, nowMs: number): number {
    return this.persistingGeneration(groupId, (g) => g.leave(memberId, groupInstanceId, nowMs));
  }

  /** The group timers fire: returns, per group, the members removed. */
  tick(nowMs: number): { groupId: string; removed: string[] }[] {
    const out: { groupId: string; removed: string[] }[] = [];
    for (const groupId of this.groups.keys()) {
      const removed = this.persistingGeneration(groupId, (g) => g.tick(nowMs));
      if (removed.length > 0) out.push({ groupId, removed });
    }
    return out;
  }

  /** A completed join writes the group's metadata record (ClassicGroup's GroupMetadata on completing the join). */
  private persistingGeneration<T>(groupId: string, action: (group: ClassicGroup) => T): T {
    const group = this.group(groupId);
    const before = group.generationId;
    const result = action(group);
    if (group.generationId !== before)
      this.log.appendGroupMetadataRecord({
        groupId,
        generationId: group.generationId,
      });
    return result;
  }

  // ------------------------------------------------------------------ offsets

  /**
   * OffsetCommit (non-transactional): validated, written, committed at once. One error for all
   * partitions, OFFSET_METADATA_TOO_LARGE when any partition's metadata was refused (those are not
   * written; under KAFKA-16371's switch they stay pending for ever).
   */
  commitOffsets(committer: CommitterMetadata, offsets: readonly CommittedOffset[]): number {
    const group = this.group(committer.groupId);
    const invalid = group.validateOffsetCommit(committer, { isTransactional: false });
    if (invalid !== Errors.NONE) return invalid;
    const { valid, rejected } = this.splitByMetadataSize(offsets);
    if (valid.length === 0) return Errors.OFFSET_METADATA_TOO_LARGE;
    const batch = this.log.appendOffsetCommitRecords(valid.map((o) => ({ ...o, ...recordOf(committer) })));
    for (const o of valid)
      this.offsets.replayOffsetCommit(committer.groupId, o.partition, {
        offset: o.offset,
        recordOffset: batch.baseOffset,
        generationId: committer.generationId,
        memberId: committer.memberId,
        producerId: -1,
        ghostTxn: null,
      });
    if (rejected.length === 0) return Errors.NONE;
    if (this.options.pendingOffsetsKeepRejectedPartitions)
      for (const o of rejected) this.offsets.stageRejectedOffsetCommit(committer.groupId, o.partition);
    return Errors.OFFSET_METADATA_TOO_LARGE;
  }

  /**
   * OffsetMetadataManager.isMetadataInvalid (GroupMetadataManager.validateOffsetMetadataLength in
   * the classic coordinator): metadata longer than offset.metadata.max.bytes is refused.
   */
  private splitByMetadataSize(offsets: readonly CommittedOffset[]): {
    valid: CommittedOffset[];
    rejected: CommittedOffset[];
  } {
    const max = this.options.offsetMetadataMaxBytes ?? DEFAULT_OFFSET_METADATA_MAX_BYTES;
    const fits = (o: CommittedOffset) => o.metadata === undefined || o.metadata.length <= max;
    return { valid: offsets.filter(fits), rejected: offsets.filter((o) => !fits(o)) };
  }

  /**
   * TxnOffsetCommit (OffsetMetadataManager.commitTransactionalOffset after verification, KAFKA-15784's
   * order): validate the committer against the group (KIP-447), then write the records of the
   * partitions whose metadata fits as one transactional batch of the producer through the log's
   * producer-state checks; on success those offsets are pending for the producer id until its
   * marker. OFFSET_METADATA_TOO_LARGE when a partition was refused (the response's one error code
   * stands for Kafka's per-partition errors: the Java producer fails on the first non-NONE one).
   */
  commitTransactionalOffsets(input: TxnOffsetCommitInput, validatedBefore = false): number {
    // KAFKA-15784's bug switch: the caller validated at the request's arrival, before the verification.
    const invalid = validatedBefore ? Errors.NONE : this.validateTransactionalOffsetCommit(input);
    if (invalid !== Errors.NONE) return invalid;
    const { valid, rejected } = this.splitByMetadataSize(input.offsets);
    if (valid.length === 0) return Errors.OFFSET_METADATA_TOO_LARGE;
    // KAFKA-16371's bug switch: GroupMetadata.prepareTxnOffsetCommit took the unfiltered map before
    // the append, and neither its success nor its failure callback removed the refused partitions.
    if (this.options.pendingOffsetsKeepRejectedPartitions)
      for (const o of rejected) this.offsets.stageRejectedTxnOffsetCommit(input.groupId, o.partition, input.producerId);
    const errorCode = this.writeTransactionalOffsets(input, valid);
    return errorCode === Errors.NONE && rejected.length > 0 ? Errors.OFFSET_METADATA_TOO_LARGE : errorCode;
  }

  private writeTransactionalOffsets(input: TxnOffsetCommitInput, offsets: readonly CommittedOffset[]): number {
    const appended = this.log.appendData({
      producerId: input.producerId,
      producerEpoch: input.producerEpoch,
      baseSequence: 0,
      isTransactional: true,
      values: offsets.map((o) => `${input.groupId}:${o.partition}@${o.offset}`),
      ghostTxn: input.ghostTxn,
      verificationGuard: input.verificationGuard,
      origin: "COORDINATOR",
      offsetCommits: offsets.map((o) => ({ ...o, ...recordOf(input) })),
    });
    if (appended.kind === "error") return appended.errorCode;
    if (appended.kind === "duplicate") throw new Error("a coordinator write is never a duplicate (origin COORDINATOR)");
    const known = this.groups.get(input.groupId);
    this.options.onTxnOffsetsAccepted?.({
      ghostTxn: input.ghostTxn,
      transactionalId: input.transactionalId,
      groupId: input.groupId,
      memberId: input.memberId,
      generationId: input.generationId,
      groupGenerationId: known ? known.generationId : -1,
      memberKnown: known ? known.members.has(input.memberId) : false,
      offsets,
      atOffset: appended.batch.baseOffset,
    });
    for (const o of offsets)
      this.offsets.replayTransactionalOffsetCommit(input.groupId, o.partition, {
        offset: o.offset,
        recordOffset: appended.batch.baseOffset,
        generationId: input.generationId,
        memberId: input.memberId,
        producerId: input.producerId,
        ghostTxn: input.ghostTxn,
      });
    return Errors.NONE;
  }

  /**
   * OffsetMetadataManager.validateTransactionalOffsetCommit: an unknown group accepts only an
   * unmanaged commit (generation -1) and otherwise answers ILLEGAL_GENERATION; a known group
   * validates member, instance and generation (ClassicGroup.validateOffsetCommit, transactional).
   */
  validateTransactionalOffsetCommit(input: CommitterMetadata): number {
    if (!this.options.txnOffsetCommitGenerationCheck) return Errors.NONE;
    const known = this.groups.get(input.groupId);
    if (!known && input.generationId >= 0) return Errors.ILLEGAL_GENERATION;
    return this.group(input.groupId).validateOffsetCommit(input, { isTransactional: true });
  }

  /** The committed offset of a group's partition, with who committed it (the final checks). */
  committedOffset(groupId: string, partition: PartitionKey): OffsetAndMetadata | null {
    return this.offsets.committed(groupId, partition);
  }

  /** OffsetFetch (require_stable from v7, KIP-447). */
  fetchOffsets(groupId: string, partitions: readonly PartitionKey[], requireStable: boolean): FetchedOffset[] {
    return this.offsets.fetchOffsets(groupId, partitions, requireStable);
  }

  /**
   * A transaction marker for this partition (GroupCoordinatorService.completeTransaction ->
   * CoordinatorRuntime.scheduleTransactionCompletion -> CoordinatorCompleteTransactionEvent): the
   * pending offsets of the producer id are decided first (replayEndTransactionMarker), then the
   * marker is written through the log's producer-state checks (CoordinatorPartitionWriter, origin
   * COORDINATOR); if the write fails, the state goes back to before (revertLastWrittenOffset).
   * The marker's TransactionVersion travels with it unless the option drops it.
   */
  completeTransaction(marker: TxnMarkerInput): CompleteTransactionResult {
    const transactionVersionSeen = this.options.markerTransactionVersionReachesLog ? marker.transactionVersion : 0;
    const snapshot = this.offsets.snapshot();
    const materialized = this.offsets.replayEndTransactionMarker(marker.producerId, marker.result);
    const append = this.log.appendMarker({
      producerId: marker.producerId,
      producerEpoch: marker.producerEpoch,
      result: marker.result,
      coordinatorEpoch: marker.coordinatorEpoch,
      transactionVersion: transactionVersionSeen,
      ghostTxn: marker.ghostTxn,
    });
    if (append.kind !== "appended") {
      // A failed write reverts what was replayed.
      this.offsets.revertTo(snapshot);
      return { errorCode: append.errorCode, append, materialized: null, transactionVersionSeen };
    }
    return { errorCode: Errors.NONE, append, materialized, transactionVersionSeen };
  }
}

function recordOf(committer: CommitterMetadata): { groupId: string; generationId: number; memberId: string } {
  return { groupId: committer.groupId, generationId: committer.generationId, memberId: committer.memberId };
}
