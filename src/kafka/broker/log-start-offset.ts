import type { PartitionLog } from "./partition-log.js";
import type { ProducerStateEntry } from "./producer-state-entry.js";

/**
 * UnifiedLog.maybeIncrementLogStartOffset (DeleteRecords, reason ClientRecordDeletion): a new log
 * start above the current one and not past the high watermark moves it, and the producer state with
 * it (ProducerStateManager.onLogStartOffsetIncremented). The model keeps the batches below it: the
 * oracle's final reads and the consumers see the whole log. Returns the producer ids evicted
 * (KAFKA-7190's switch), or null when nothing moved.
 */
export function maybeIncrementLogStartOffset(log: PartitionLog, newLogStartOffset: number): number[] | null {
  if (newLogStartOffset <= log.logStartOffset || newLogStartOffset > log.highWatermark) return null;
  log.logStartOffset = newLogStartOffset;
  const evicted = log.producerState.onLogStartOffsetIncremented(newLogStartOffset);
  log.refreshFirstUnstableOffset();
  return evicted;
}

/**
 * KAFKA-7190's switch, ProducerStateManager.truncateHead before 2.4: each producer's batches below
 * the new log start go (removeBatchesOlderThan), and a producer left without a data batch at or
 * above it is not retained (isProducerRetained: lastDataOffset >= logStartOffset), whatever its
 * epoch or open transaction. Returns those producer ids; the caller evicts them.
 */
export function producersNotRetained(
  producers: ReadonlyMap<number, ProducerStateEntry>,
  logStartOffset: number,
): number[] {
  const evicted: number[] = [];
  for (const [pid, e] of producers) {
    const kept = e.batchMetadata.filter((b) => b.lastOffset >= logStartOffset);
    e.batchMetadata.splice(0, e.batchMetadata.length, ...kept);
    if (kept.length === 0) evicted.push(pid);
  }
  return evicted;
}
