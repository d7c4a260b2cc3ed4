/** An epoch and the first offset written under it (LeaderEpochFileCache's EpochEntry). */
export interface EpochEntry {
  epoch: number;
  startOffset: number;
}

/** Epoch unknown, as Kafka's UNDEFINED_EPOCH / UNDEFINED_EPOCH_OFFSET. */
export const UNDEFINED_EPOCH = -1;
export const UNDEFINED_EPOCH_OFFSET = -1;

/** Bound on entries: one per leader change of the partition; more means the model is looping. */
export const MAX_EPOCH_ENTRIES = 100_000;

/**
 * LeaderEpochFileCache: for each leader epoch, the first offset its leader wrote. It answers "where
 * does my log end for epoch E" (endOffsetFor), which is how a follower learns that its log diverged
 * from the leader's and where to truncate.
 */
export class LeaderEpochCache {
  private readonly entries: EpochEntry[] = [];
  /** The last entry's epoch (UNDEFINED with none), kept: every append and fetch asks for it. */
  latestEpoch = UNDEFINED_EPOCH;

  /** Record that `epoch` starts at `startOffset` (ignored unless the epoch is newer than the latest). */
  assign(epoch: number, startOffset: number): void {
    if (epoch <= this.latestEpoch) return;
    if (this.entries.length >= MAX_EPOCH_ENTRIES) throw new Error("leader epoch cache bound exceeded");
    this.entries.push({ epoch, startOffset });
    this.latestEpoch = epoch;
  }

  /**
   * LeaderEpochFileCache.endOffsetFor: for the latest epoch, the log end; else the largest epoch at
   * or below the requested one and the start of the first epoch above it (the requested epoch
   * itself when it is older than every cached one); UNDEFINED for an unknown or newer epoch.
   */
  endOffsetFor(requestedEpoch: number, logEndOffset: number): EpochEntry {
    if (requestedEpoch === UNDEFINED_EPOCH) return undefinedEntry();
    if (requestedEpoch === this.latestEpoch) return { epoch: requestedEpoch, startOffset: logEndOffset };
    let floor: EpochEntry | null = null;
    for (const entry of this.entries) {
      if (entry.epoch > requestedEpoch)
        return { epoch: floor ? floor.epoch : requestedEpoch, startOffset: entry.startOffset };
      floor = entry;
    }
    return undefinedEntry();
  }

  /** Truncation of the log to `endOffset`: epochs that start at or after it are forgotten. */
  truncateFromEnd(endOffset: number): void {
    while (this.entries.length > 0 && (this.entries[this.entries.length - 1] as EpochEntry).startOffset >= endOffset)
      this.entries.pop();
    this.latestEpoch = this.entries[this.entries.length - 1]?.epoch ?? UNDEFINED_EPOCH;
  }

  /** The entries, oldest first (for tests and explanations). */
  all(): readonly EpochEntry[] {
    return this.entries;
  }
}

function undefinedEntry(): EpochEntry {
  return { epoch: UNDEFINED_EPOCH, startOffset: UNDEFINED_EPOCH_OFFSET };
}
