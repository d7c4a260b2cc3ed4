import type { Simulation } from "../../sim/simulation.js";
import type { KafkaEvents } from "../trace-events.js";
import { Errors } from "../common/errors.js";
import { type LeaderIdAndEpoch, NO_CURRENT_LEADER } from "../current-leader.js";
import type { PartitionKey } from "../common/types.js";
import type {
  DivergingEpoch,
  FetchPartition,
  FetchPartitionData,
  FetchRequest,
  FetchResponse,
} from "../fetch-protocol.js";
import { isActive, type MetadataImage, type PartitionRegistration } from "../metadata/metadata-image.js";
import {
  DelayedFetch,
  DelayedProduce,
  type FetchCompletion,
  type FetchReader,
  Purgatory,
} from "./delayed-operations.js";
import { UNDEFINED_EPOCH } from "./leader-epoch-cache.js";
import { Partition, type PartitionConfig } from "./partition.js";
import type { PartitionLog } from "./partition-log.js";
import type { LogBatch } from "./log-batch.js";

/** One partition's ISR change a leader asks the controller for (AlterPartitionRequest's partition data). */
export interface AlterPartitionItem {
  readonly broker: string;
  readonly partition: PartitionKey;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  readonly newIsr: readonly string[];
}

/** AlterPartition to the controller (the cluster delivers it after a drawn delay). */
export interface AlterPartitionChannel {
  alterPartition(
    item: AlterPartitionItem,
    onResult: (errorCode: number, registration: PartitionRegistration) => void,
  ): void;
}

/** What a ReplicaManager is made of besides the simulation and its broker's id. */
export interface ReplicaManagerOptions {
  /** The broker's logs, one per replica it holds. */
  readonly logs: ReadonlyMap<PartitionKey, PartitionLog>;
  readonly configs: ReadonlyMap<PartitionKey, PartitionConfig>;
  /** The broker's metadata image now. */
  readonly image: () => MetadataImage;
  readonly controller: AlterPartitionChannel;
  readonly config: { replicaLagTimeMaxMs: number };
}

/** What an append to a leader's log did: where the acks=all wait ends (null: answer at once), and the result. */
export interface LeaderAppend<T> {
  waitForOffset: number | null;
  value: T;
}

/** The leadership this broker gained and lost in one metadata update (for the coordinators). */
export interface LeadershipDelta {
  becameLeader: PartitionRegistration[];
  becameFollower: PartitionRegistration[];
}

/** Replication timing of the broker (Kafka's config names). */
export interface ReplicationConfig {
  /** replica.fetch.wait.max.ms */
  replicaFetchWaitMaxMs: number;
  /** replica.fetch.backoff.ms */
  replicaFetchBackoffMs: number;
  /** The broker's request.timeout.ms for its own fetches. */
  requestTimeoutMs: number;
}

/** Bound on batches one fetch returns per partition (Kafka bounds bytes; the model bounds batches). */
export const MAX_FETCH_BATCHES = 500;

/**
 * ReplicaManager: the partitions this broker holds a replica of, the acks=all appends to those it
 * leads (DelayedProduce), the fetches it serves to followers and consumers (DelayedFetch, the long
 * poll), the ISR's shrink and expansion through AlterPartition, and role changes from metadata
 * updates. Its fetchers (replica-fetcher.ts) copy what it follows.
 */
export class ReplicaManager implements FetchReader {
  readonly partitions = new Map<PartitionKey, Partition>();
  private readonly produces = new Purgatory<DelayedProduce>("produce purgatory");
  private readonly fetches = new Purgatory<DelayedFetch>("fetch purgatory");
  private stopped = false;

  private readonly image: () => MetadataImage;
  private readonly controller: AlterPartitionChannel;
  private readonly config: { replicaLagTimeMaxMs: number };

  constructor(
    private readonly sim: Simulation<KafkaEvents>,
    readonly brokerId: string,
    options: ReplicaManagerOptions,
  ) {
    const { logs, configs } = options;
    this.image = options.image;
    this.controller = options.controller;
    this.config = options.config;
    for (const [key, log] of logs)
      this.partitions.set(key, new Partition(key, brokerId, log, configs.get(key) as PartitionConfig));
    this.scheduleIsrExpiration();
  }

  /** The broker stopped (crash or shutdown): timers die, parked operations are never answered. */
  stop(): void {
    this.stopped = true;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /**
   * KafkaApis.getCurrentLeader: the leader id and epoch of the partition as this broker hosts it
   * (getPartitionOrError's Right: its Partition, leaderReplicaIdOpt and getLeaderEpoch), else from
   * its metadata image (metadataCache), else none. Kafka also names the leader's endpoint
   * (NodeEndpoints) when the image has it alive; the model's clients know every broker already.
   */
  getCurrentLeader(key: PartitionKey): LeaderIdAndEpoch {
    const partition = this.partitions.get(key);
    if (partition) return { leaderId: partition.leader, leaderEpoch: partition.leaderEpoch };
    const registration = this.image().partitions.get(key);
    if (registration) return { leaderId: registration.leader, leaderEpoch: registration.leaderEpoch };
    return NO_CURRENT_LEADER;
  }

  leaderPartition(key: PartitionKey): Partition | null {
    const p = this.partitions.get(key);
    return p?.isLeader ? p : null;
  }

  // ------------------------------------------------------------------ acks=all appends

  /**
   * appendRecords with acks=all to a partition this broker leads: NOT_LEADER_OR_FOLLOWER if it does
   * not, NOT_ENOUGH_REPLICAS if the ISR is below min.insync.replicas (before writing); else `append`
   * writes, and `onDone` hears the final error once the high watermark covers the write (or at once
   * when nothing waits), REQUEST_TIMED_OUT after `timeoutMs`.
   */
  appendToLeader<T>(
    key: PartitionKey,
    timeoutMs: number,
    append: (log: PartitionLog) => LeaderAppend<T>,
    onDone: (errorCode: number, value: T | null) => void,
  ): void {
    const partition = this.partitions.get(key);
    if (!partition) {
      const known = this.image().partitions.has(key);
      return onDone(known ? Errors.NOT_LEADER_OR_FOLLOWER : Errors.UNKNOWN_TOPIC_OR_PARTITION, null);
    }
    if (!partition.isLeader) return onDone(Errors.NOT_LEADER_OR_FOLLOWER, null);
    if (partition.isUnderMinIsr()) return onDone(Errors.NOT_ENOUGH_REPLICAS, null);
    const logEndBefore = partition.log.logEndOffset;
    const result = append(partition.log);
    if (partition.log.logEndOffset !== logEndBefore) this.onLeaderLogAppended(partition);
    if (result.waitForOffset === null) return onDone(Errors.NONE, result.value);
    // A stopped broker answers nothing: its parked appends die with it.
    const op = new DelayedProduce(partition, result.waitForOffset, (errorCode) => {
      if (!this.stopped) onDone(errorCode, result.value);
    });
    if (op.tryComplete()) return;
    op.expireAfter(this.sim, timeoutMs);
    this.produces.watch(key, op);
  }

  /** New data at a leader: a lone in-sync leader moves its HW now; parked follower fetches wake. */
  private onLeaderLogAppended(partition: Partition): void {
    this.maybeIncrementHighWatermark(partition);
    this.fetches.checkAndComplete(partition.key);
  }

  /** isReplicaIsrEligible through this broker's metadata image (bound once, not per call). */
  private readonly eligible = (replica: string): boolean => isActive(this.image(), replica);

  private maybeIncrementHighWatermark(partition: Partition): void {
    if (partition.maybeIncrementLeaderHW(this.sim.nowMs, this.eligible)) {
      this.sim.emit(this.brokerId, "log.hw", {
        partition: partition.key,
        hw: partition.log.highWatermark,
        lso: partition.log.lastStableOffset(),
      });
      this.produces.checkAndComplete(partition.key);
      this.fetches.checkAndComplete(partition.key);
    }
  }

  // ------------------------------------------------------------------ fetch (followers and consumers)

  /**
   * fetchMessages: a follower's fetch first records its progress (the fetch offset acknowledges what
   * it has), which may expand the ISR and move the HW; then every partition is read. With something
   * to return the answer is immediate, else the fetch parks up to maxWaitMs.
   */
  fetch(request: FetchRequest, respond: (response: FetchResponse) => void): void {
    if (request.replicaId !== null) {
      for (const p of request.partitions) this.recordFollowerFetch(request.replicaId, p);
    }
    if (request.maxWaitMs <= 0 || this.canAnswer(request)) return this.answer(request, respond);
    const op = new DelayedFetch(request, this, respond);
    op.expireAfter(this.sim, request.maxWaitMs);
    for (const p of request.partitions) this.fetches.watch(p.partition, op);
  }

  /** DelayedFetch.tryComplete's test: some partition has something to return (see hasSomethingFor). */
  canAnswer(request: FetchRequest): boolean {
    for (const p of request.partitions) if (this.hasSomethingFor(request, p)) return true;
    return false;
  }

  /** The fetch's answer, read now (a stopped broker answers nothing); `delayed`: completed from the purgatory. */
  answer(
    request: FetchRequest,
    respond: (response: FetchResponse) => void,
    completion: FetchCompletion = { delayed: false },
  ): void {
    const delayed = completion.delayed;
    if (this.stopped) return;
    if (this.readsHighWatermarkTwice(request)) return this.answerAfterSecondRead(request, respond, delayed);
    respond({ api: "Fetch", errorCode: Errors.NONE, partitions: this.read(request, delayed) });
  }

  /** KAFKA-9807's bug switch applies: a consumer's read_committed fetch at a leader that has the bug. */
  private readsHighWatermarkTwice(request: FetchRequest): boolean {
    if (request.replicaId !== null || request.isolation !== "READ_COMMITTED") return false;
    for (const p of request.partitions) {
      if (this.leaderPartition(p.partition)?.log.flags().fetchReadsHighWatermarkTwice) return true;
    }
    return false;
  }

  /**
   * KAFKA-9807 (before PR #8418): Log.lastStableOffset compared the first unstable offset with the
   * high watermark, then read the high watermark again to return it. The first read happens now;
   * the rest of the read is a scheduled step of its own (at the same time), so whatever the
   * simulation runs in between (a follower's fetch moving the HW) is seen by the second read only.
   */
  private answerAfterSecondRead(
    request: FetchRequest,
    respond: (response: FetchResponse) => void,
    delayed: boolean,
  ): void {
    const firstReads = request.partitions.map((p) =>
      this.leaderPartition(p.partition)?.log.unstableBelowHighWatermark(),
    );
    this.sim.schedule(0, () => {
      if (this.stopped) return;
      const partitions = request.partitions.map((p, i) => {
        const first = firstReads[i];
        return this.readPartition(request, p, delayed, first === undefined ? undefined : { unstableBelowHw: first });
      });
      respond({ api: "Fetch", errorCode: Errors.NONE, partitions });
    });
  }

  private recordFollowerFetch(replica: string, p: FetchPartition): void {
    const partition = this.leaderPartition(p.partition);
    if (!partition || (p.currentLeaderEpoch !== -1 && p.currentLeaderEpoch !== partition.leaderEpoch)) return;
    if (this.divergingEpoch(partition, p) !== null) return;
    const before = partition.followerState(replica)?.logEndOffset ?? -1;
    partition.updateFollowerFetchState(replica, p.fetchOffset, this.sim.nowMs);
    this.maybeExpandIsr(partition, replica);
    // The HW can only move when this follower's log end did (an ISR change moves it elsewhere).
    if (p.fetchOffset !== before) this.maybeIncrementHighWatermark(partition);
  }

  private read(request: FetchRequest, delayed: boolean): FetchPartitionData[] {
    return request.partitions.map((p) => this.readPartition(request, p, delayed));
  }

  private readPartition(
    request: FetchRequest,
    p: FetchPartition,
    delayed: boolean,
    firstRead?: { unstableBelowHw: number | null },
  ): FetchPartitionData {
    const partition = this.partitions.get(p.partition);
    // KafkaApis.handleFetchRequest's processResponseCallback (v16+, KIP-951: every Fetch the
    // model's clients and brokers send is): these two errors carry the leader this broker knows.
    if (!partition?.isLeader)
      return errorData(p.partition, Errors.NOT_LEADER_OR_FOLLOWER, this.getCurrentLeader(p.partition));
    if (p.currentLeaderEpoch !== -1 && p.currentLeaderEpoch < partition.leaderEpoch)
      return errorData(p.partition, Errors.FENCED_LEADER_EPOCH, this.getCurrentLeader(p.partition));
    if (p.currentLeaderEpoch > partition.leaderEpoch) return errorData(p.partition, Errors.UNKNOWN_LEADER_EPOCH);
    const log = partition.log;
    const lastStableOffset = firstRead
      ? log.lastStableOffsetAfterSecondRead(firstRead.unstableBelowHw)
      : log.lastStableOffset();
    if (request.replicaId !== null) {
      const diverging = this.divergingEpoch(partition, p);
      if (diverging !== null)
        return { ...errorData(p.partition, Errors.NONE), divergingEpoch: diverging, highWatermark: log.highWatermark };
      return dataOf(
        p.partition,
        log.highWatermark,
        lastStableOffset,
        log.readToLogEnd(p.fetchOffset, p.maxBatches),
        [],
      );
    }
    // KAFKA-5355 / KAFKA-5376's bug switch: a long poll completed from the purgatory reads up to the
    // high watermark and returns no aborted transactions, whatever the isolation level.
    if (delayed && request.isolation === "READ_COMMITTED" && log.flags().delayedFetchIgnoresIsolation) {
      const uncommitted = log.read(p.fetchOffset, "READ_UNCOMMITTED", p.maxBatches, { lastStableOffset });
      return dataOf(p.partition, log.highWatermark, log.highWatermark, uncommitted.batches, []);
    }
    const read = log.read(p.fetchOffset, request.isolation, p.maxBatches, { lastStableOffset });
    return dataOf(p.partition, log.highWatermark, lastStableOffset, read.batches, read.abortedTransactions);
  }

  /** DelayedFetch.tryComplete's test for one partition, without reading: data, an error, or a divergence. */
  private hasSomethingFor(request: FetchRequest, p: FetchPartition): boolean {
    const partition = this.partitions.get(p.partition);
    if (!partition?.isLeader || (p.currentLeaderEpoch !== -1 && p.currentLeaderEpoch !== partition.leaderEpoch))
      return true;
    const log = partition.log;
    if (request.replicaId !== null)
      return log.logEndOffset > p.fetchOffset || this.divergingEpoch(partition, p) !== null;
    const bound = request.isolation === "READ_COMMITTED" ? log.lastStableOffset() : log.highWatermark;
    return bound > p.fetchOffset;
  }

  /**
   * Partition.readRecords' truncation check: the follower's last fetched epoch ends earlier here than
   * its fetch offset (or is unknown here): it must truncate, to where that epoch ends here.
   */
  private divergingEpoch(partition: Partition, p: FetchPartition): DivergingEpoch | null {
    if (p.lastFetchedEpoch < 0) return null;
    const log = partition.log;
    // The usual case, a follower on this leader's latest epoch, needs no lookup (and allocates
    // nothing): that epoch ends at the log end, so it diverges only when it fetches past it.
    if (p.lastFetchedEpoch === log.leaderEpochCache.latestEpoch)
      return p.fetchOffset > log.logEndOffset ? { epoch: p.lastFetchedEpoch, endOffset: log.logEndOffset } : null;
    const end = log.leaderEpochCache.endOffsetFor(p.lastFetchedEpoch, log.logEndOffset);
    if (end.epoch === UNDEFINED_EPOCH || end.epoch < p.lastFetchedEpoch || end.startOffset < p.fetchOffset)
      return { epoch: end.epoch, endOffset: end.startOffset };
    return null;
  }

  // ------------------------------------------------------------------ ISR changes

  /** A caught-up follower outside the ISR, eligible (active in this broker's metadata), joins it. */
  private maybeExpandIsr(partition: Partition, replica: string): void {
    if (!partition.followerToAdd(replica) || !isActive(this.image(), replica)) return;
    this.submitIsr(partition, [...partition.isr, replica], "expand");
  }

  /** Every replica.lag.time.max.ms / 2 ("isr-expiration"): followers that fell behind leave the ISR. */
  private scheduleIsrExpiration(): void {
    const intervalMs = Math.max(1, Math.floor(this.config.replicaLagTimeMaxMs / 2));
    this.sim.schedule(intervalMs, () => {
      if (this.stopped) return;
      for (const partition of this.partitions.values()) {
        if (!partition.isLeader || partition.pendingIsr !== null) continue;
        const out = partition.outOfSyncReplicas(this.sim.nowMs);
        if (out.length > 0)
          this.submitIsr(
            partition,
            partition.isr.filter((r) => !out.includes(r)),
            "shrink",
          );
      }
      this.scheduleIsrExpiration();
    });
  }

  private submitIsr(partition: Partition, newIsr: readonly string[], why: "expand" | "shrink"): void {
    partition.pendingIsr = newIsr;
    const leaderEpoch = partition.leaderEpoch;
    this.sim.emit(this.brokerId, "isr.alter", { partition: partition.key, isr: newIsr.join(","), why, leaderEpoch });
    this.controller.alterPartition(
      {
        broker: this.brokerId,
        partition: partition.key,
        leaderEpoch,
        partitionEpoch: partition.partitionEpoch,
        newIsr,
      },
      (errorCode, registration) => {
        if (this.stopped || partition.leaderEpoch !== leaderEpoch || !partition.isLeader) return;
        if (errorCode === Errors.NONE) partition.updateAssignmentAndIsr(registration);
        partition.pendingIsr = null;
        this.maybeIncrementHighWatermark(partition);
        this.produces.checkAndComplete(partition.key);
      },
    );
  }

  // ------------------------------------------------------------------ role changes

  /**
   * ReplicaManager.applyDelta: for every partition held here whose registration changed, become
   * leader (a new leader epoch naming this broker) or follower (another leader, or a new epoch of
   * one); an unchanged epoch only updates the ISR. Parked appends and fetches of a lost leadership
   * complete now (NOT_LEADER_OR_FOLLOWER).
   */
  applyDelta(
    changes: readonly { before: PartitionRegistration | null; after: PartitionRegistration }[],
  ): LeadershipDelta {
    const delta: LeadershipDelta = { becameLeader: [], becameFollower: [] };
    for (const { after: reg } of changes) {
      const partition = this.partitions.get(reg.partition);
      if (!partition) continue;
      const sameEpoch = partition.leaderEpoch === reg.leaderEpoch && partition.leader === reg.leader;
      if (sameEpoch) {
        partition.updateAssignmentAndIsr(reg);
        continue;
      }
      const wasLeader = partition.isLeader;
      if (reg.leader === this.brokerId) {
        partition.makeLeader(reg, this.sim.nowMs);
        delta.becameLeader.push(reg);
      } else {
        partition.makeFollower(reg);
        delta.becameFollower.push(reg);
      }
      this.sim.emit(this.brokerId, reg.leader === this.brokerId ? "replica.leader" : "replica.follower", {
        partition: reg.partition,
        leader: reg.leader,
        leaderEpoch: reg.leaderEpoch,
        leo: partition.log.logEndOffset,
        hw: partition.log.highWatermark,
      });
      if (wasLeader) {
        this.produces.checkAndComplete(reg.partition);
        this.fetches.checkAndComplete(reg.partition);
      }
      if (partition.isLeader) this.maybeIncrementHighWatermark(partition);
    }
    return delta;
  }

  /** Partitions this broker follows, by leader (what its fetchers must fetch). */
  followedByLeader(): Map<string, Partition[]> {
    const out = new Map<string, Partition[]>();
    for (const partition of this.partitions.values()) {
      if (partition.isLeader || partition.leader === null) continue;
      const list = out.get(partition.leader) ?? [];
      list.push(partition);
      out.set(partition.leader, list);
    }
    return out;
  }

  /** A follower's fetched batches, appended as follower; the HW follows the leader's. Parked fetches of this replica do not exist (it leads nothing here). */
  appendAsFollower(partition: Partition, batches: readonly LogBatch[], leaderHighWatermark: number): void {
    for (const batch of batches) {
      if (batch.lastOffset < partition.log.logEndOffset) continue;
      partition.log.appendAsFollower(batch);
    }
    partition.log.updateFollowerHighWatermark(leaderHighWatermark);
  }
}

function errorData(
  partition: PartitionKey,
  errorCode: number,
  currentLeader: LeaderIdAndEpoch = NO_CURRENT_LEADER,
): FetchPartitionData {
  return {
    partition,
    errorCode,
    highWatermark: -1,
    lastStableOffset: -1,
    batches: [],
    abortedTransactions: [],
    divergingEpoch: null,
    currentLeader,
  };
}

function dataOf(
  partition: PartitionKey,
  highWatermark: number,
  lastStableOffset: number,
  batches: LogBatch[],
  abortedTransactions: FetchPartitionData["abortedTransactions"],
): FetchPartitionData {
  return {
    partition,
    errorCode: Errors.NONE,
    highWatermark,
    lastStableOffset,
    batches,
    abortedTransactions,
    divergingEpoch: null,
    currentLeader: NO_CURRENT_LEADER,
  };
}
