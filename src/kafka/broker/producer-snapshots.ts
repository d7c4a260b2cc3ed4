import type { ProducerSnapshotEntry } from "./producer-state-manager.js";

/** One producer-state snapshot file: its offset (the map end offset) and the entries it holds. */
export interface ProducerSnapshot {
  readonly offset: number;
  readonly entries: readonly ProducerSnapshotEntry[];
}

/**
 * The producer-state snapshot files of one log's directory (ProducerStateManager's `snapshots`), in
 * ascending offset order, each holding the state it was taken with: Kafka takes one where a truncation
 * or a restart's recovery rebuilt the state, and at a clean shutdown. A rebuild loads the latest one
 * at or below its offset and replays the batches after it.
 */
export class ProducerSnapshots {
  private readonly files: ProducerSnapshot[] = [];

  /** ProducerStateManager.takeSnapshot at `offset`: a file at the same offset is overwritten. */
  take(offset: number, entries: readonly ProducerSnapshotEntry[]): void {
    const kept = this.files.filter((s) => s.offset !== offset);
    kept.push({ offset, entries });
    kept.sort((a, b) => a.offset - b.offset);
    this.files.splice(0, this.files.length, ...kept);
  }

  /** The latest snapshot at or below `offset` (ProducerStateManager.latestSnapshotFile up to it). */
  latestAtOrBelow(offset: number): ProducerSnapshot | null {
    for (let i = this.files.length - 1; i >= 0; i--) {
      const s = this.files[i] as ProducerSnapshot;
      if (s.offset <= offset) return s;
    }
    return null;
  }

  /** ProducerStateManager.truncateAndReload: the snapshots above the new log end go. */
  dropAbove(logEndOffset: number): void {
    while ((this.files.at(-1)?.offset ?? -1) > logEndOffset) this.files.pop();
  }

  /**
   * A crash's recovery of the segment based at the log start (LogLoader.recoverSegment): its producer
   * state's truncateAndReload(logStart, segmentBase) deletes every snapshot file (those above the
   * segment's base and the one at the log start), before the replay writes one at the log end.
   */
  deleteAll(): void {
    this.files.length = 0;
  }

  /**
   * ProducerStateManager.removeStraySnapshots as LogLoader calls it when a log is opened: of the
   * snapshots at no segment's base offset (the model's log is one segment, based at 0) only the
   * latest stays.
   */
  removeStray(): void {
    const latest = this.files.at(-1);
    const kept = this.files.filter((s) => s.offset === 0 || s === latest);
    this.files.splice(0, this.files.length, ...kept);
  }
}
