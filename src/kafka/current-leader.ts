/**
 * KIP-951's CurrentLeader (LeaderIdAndEpoch) of a Produce (v10+) or Fetch (v16+) partition
 * response: the partition's leader as the answering broker knows it (KafkaApis.getCurrentLeader).
 * The broker fills it only when it answers NOT_LEADER_OR_FOLLOWER (Produce) or
 * NOT_LEADER_OR_FOLLOWER / FENCED_LEADER_EPOCH (Fetch); otherwise it keeps the schema's default,
 * leaderId -1 (null here) and leaderEpoch -1, which a client ignores.
 */
export interface LeaderIdAndEpoch {
  readonly leaderId: string | null;
  readonly leaderEpoch: number;
}

/** The schema's default: no leader known (leaderId -1, leaderEpoch -1). */
export const NO_CURRENT_LEADER: LeaderIdAndEpoch = Object.freeze({ leaderId: null, leaderEpoch: -1 });

/** The client's first test (Sender.completeBatch, AbstractFetch.handleFetchSuccess): both fields set. */
export function hasCurrentLeader(currentLeader: LeaderIdAndEpoch): boolean {
  return currentLeader.leaderId !== null && currentLeader.leaderEpoch !== -1;
}
