import { Errors, IllegalStateException } from "../../common/errors.js";
import type { PartitionKey, TransactionResult } from "../../common/types.js";

/** OffsetAndMetadata, with who committed it (for the oracle's explanations). */
export interface OffsetAndMetadata {
  /** The next input offset to read. */
  readonly offset: number;
  /** The offset of the commit record in __consumer_offsets (the most recent record wins); -1: never written (KAFKA-16371). */
  readonly recordOffset: number;
  readonly generationId: number;
  readonly memberId: string;
  /** The transactional producer's id, or -1 for a plain OffsetCommit. */
  readonly producerId: number;
  /** Ghost (not Kafka): the transaction attempt that committed it, if transactional. */
  readonly ghostTxn: string | null;
}

/** What a marker did to a producer's pending offsets (for the trace and the oracle). */
export interface MaterializedOffsets {
  readonly producerId: number;
  readonly result: TransactionResult;
  /** Each pending offset the marker took, and whether it became the committed offset. */
  readonly entries: readonly {
    groupId: string;
    partition: PartitionKey;
    offset: OffsetAndMetadata;
    materialized: boolean;
  }[];
}

export interface FetchedOffset {
  readonly partition: PartitionKey;
  readonly offset: number;
  readonly errorCode: number;
}

type OffsetsByPartition = Map<PartitionKey, OffsetAndMetadata>;

/**
 * OffsetMetadataManager: the committed offsets of the groups of one __consumer_offsets partition,
 * and the pending transactional offsets by producer id (Kafka keys them by producer id only, not by
 * transaction: the next marker of that producer id decides them, whichever transaction it closes).
 */
export class OffsetMetadataManager {
  private readonly offsets = new Map<string, OffsetsByPartition>();
  private readonly pending = new Map<number, Map<string, OffsetsByPartition>>();
  /**
   * KAFKA-16371's bug switch only: the classic coordinator's pendingOffsetCommits entries of plain
   * OffsetCommit partitions refused for their metadata, which nothing ever removes (by group).
   */
  private readonly lingering = new Map<string, Set<PartitionKey>>();

  /**
   * A plain OffsetCommit record was written: it is the committed offset at once. Under KAFKA-16371's
   * switch a written partition's stage goes (GroupMetadata.prepareOffsetCommit staged this commit's
   * offset over the refused one, and onOffsetCommitAppend removes a stage equal to what it wrote).
   */
  replayOffsetCommit(groupId: string, partition: PartitionKey, value: OffsetAndMetadata): void {
    mapFor(this.offsets, groupId).set(partition, value);
    this.lingering.get(groupId)?.delete(partition);
  }

  /** A TxnOffsetCommit record was written: pending until its producer's marker. */
  replayTransactionalOffsetCommit(groupId: string, partition: PartitionKey, value: OffsetAndMetadata): void {
    const byGroup = this.pending.get(value.producerId) ?? new Map<string, OffsetsByPartition>();
    this.pending.set(value.producerId, byGroup);
    mapFor(byGroup, groupId).set(partition, value);
  }

  /**
   * KAFKA-16371's bug switch, plain OffsetCommit: GroupMetadata.prepareOffsetCommit staged a partition
   * the records left out, and only the append callback, for the written partitions, cleared the stage.
   */
  stageRejectedOffsetCommit(groupId: string, partition: PartitionKey): void {
    const set = this.lingering.get(groupId) ?? new Set<PartitionKey>();
    this.lingering.set(groupId, set);
    set.add(partition);
  }

  /**
   * KAFKA-16371's bug switch, TxnOffsetCommit: GroupMetadata.prepareTxnOffsetCommit staged a refused
   * partition for the producer with no record (CommitRecordMetadataAndOffset(None, ...)): pending until
   * the producer's next marker.
   */
  stageRejectedTxnOffsetCommit(groupId: string, partition: PartitionKey, producerId: number): void {
    this.replayTransactionalOffsetCommit(groupId, partition, {
      offset: -1,
      recordOffset: -1,
      generationId: -1,
      memberId: "",
      producerId,
      ghostTxn: null,
    });
  }

  /** OffsetMetadataManager.hasPendingTransactionalOffsets: does any open transaction hold an offset of it? */
  hasPendingTransactionalOffsets(groupId: string, partition: PartitionKey): boolean {
    for (const byGroup of this.pending.values()) if (byGroup.get(groupId)?.has(partition)) return true;
    return false;
  }

  /** The producer ids holding pending offsets of the group (openTransactionsByGroup). */
  openTransactionsOf(groupId: string): number[] {
    return [...this.pending.entries()].filter(([, byGroup]) => byGroup.has(groupId)).map(([pid]) => pid);
  }

  committed(groupId: string, partition: PartitionKey): OffsetAndMetadata | null {
    return this.offsets.get(groupId)?.get(partition) ?? null;
  }

  /**
   * OffsetMetadataManager.fetchOffsets: per partition the committed offset (-1 without one);
   * with require_stable (KIP-447) a partition with pending transactional offsets answers
   * UNSTABLE_OFFSET_COMMIT, so the consumer retries instead of reading an offset about to move.
   */
  fetchOffsets(groupId: string, partitions: readonly PartitionKey[], requireStable: boolean): FetchedOffset[] {
    return partitions.map((partition) => {
      const unstable = this.hasPendingTransactionalOffsets(groupId, partition) || this.isLingering(groupId, partition);
      if (requireStable && unstable) return { partition, offset: -1, errorCode: Errors.UNSTABLE_OFFSET_COMMIT };
      return { partition, offset: this.committed(groupId, partition)?.offset ?? -1, errorCode: Errors.NONE };
    });
  }

  /**
   * The partitions a require_stable OffsetFetch answers UNSTABLE_OFFSET_COMMIT for though no
   * transaction holds a pending offset of them: only KAFKA-16371's lingering stage (for the oracle).
   */
  unstableWithoutTransaction(): { groupId: string; partition: PartitionKey }[] {
    const out: { groupId: string; partition: PartitionKey }[] = [];
    for (const [groupId, set] of this.lingering)
      for (const partition of set)
        if (!this.hasPendingTransactionalOffsets(groupId, partition)) out.push({ groupId, partition });
    return out;
  }

  private isLingering(groupId: string, partition: PartitionKey): boolean {
    return this.lingering.get(groupId)?.has(partition) ?? false;
  }

  /**
   * OffsetMetadataManager.replayEndTransactionMarker: the producer's pending offsets leave the
   * pending store; on COMMIT each becomes the committed offset unless a more recent record (a
   * larger record offset) already is. Nothing pending: nothing happens.
   */
  replayEndTransactionMarker(producerId: number, result: TransactionResult): MaterializedOffsets {
    const byGroup = this.pending.get(producerId);
    this.pending.delete(producerId);
    const entries: MaterializedOffsets["entries"][number][] = [];
    for (const [groupId, byPartition] of byGroup ?? []) {
      for (const [partition, offset] of byPartition) {
        // GroupMetadata.completePendingTxnOffsetCommit (the classic coordinator, under KAFKA-16371's switch).
        if (result === "COMMIT" && offset.recordOffset < 0)
          throw new IllegalStateException(
            `Trying to complete a transactional offset commit for producerId ${producerId} and groupId ${groupId} even though the offset commit record itself hasn't been appended to the log (${partition})`,
          );
        const existing = this.committed(groupId, partition);
        const materialized = result === "COMMIT" && (existing === null || offset.recordOffset > existing.recordOffset);
        if (materialized) mapFor(this.offsets, groupId).set(partition, offset);
        entries.push({ groupId, partition, offset, materialized });
      }
    }
    return { producerId, result, entries };
  }

  /** A snapshot to revert to (CoordinatorRuntime's timeline snapshot at the last written offset). */
  snapshot(): OffsetsSnapshot {
    return {
      offsets: new Map([...this.offsets].map(([g, m]) => [g, new Map(m)])),
      pending: new Map([...this.pending].map(([pid, byGroup]) => [pid, copyByGroup(byGroup)])),
    };
  }

  /** revertLastWrittenOffset: back to the snapshot, when the write it preceded failed. */
  revertTo(snapshot: OffsetsSnapshot): void {
    this.offsets.clear();
    for (const [g, m] of snapshot.offsets) this.offsets.set(g, new Map(m));
    this.pending.clear();
    for (const [pid, byGroup] of snapshot.pending) this.pending.set(pid, copyByGroup(byGroup));
  }
}

export interface OffsetsSnapshot {
  readonly offsets: ReadonlyMap<string, OffsetsByPartition>;
  readonly pending: ReadonlyMap<number, Map<string, OffsetsByPartition>>;
}

function mapFor(outer: Map<string, OffsetsByPartition>, groupId: string): OffsetsByPartition {
  let inner = outer.get(groupId);
  if (!inner) {
    inner = new Map();
    outer.set(groupId, inner);
  }
  return inner;
}

function copyByGroup(byGroup: Map<string, OffsetsByPartition>): Map<string, OffsetsByPartition> {
  return new Map([...byGroup].map(([g, m]) => [g, new Map(m)]));
}
