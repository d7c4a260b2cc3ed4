import { ConnectionPool, type RpcResult } from "../../sim/network.js";
import { Errors } from "../common/errors.js";
import type { PartitionKey } from "../common/types.js";
import type { ClusterContext } from "../cluster-context.js";
import type { KafkaRequest, KafkaResponse } from "../protocol.js";
import type { ClientMetadata } from "./client-metadata.js";

/** What a plain committer does, besides its partitions. */
export interface OffsetCommitterSettings {
  readonly groupId: string;
  /** auto.commit.interval.ms: the time between two commits of its position. */
  readonly commitIntervalMs: number;
  /** Commits before the application restarts the consumer (which reads its committed offsets again). */
  readonly commitsPerRestart: number;
  /** Per partition per commit: the application attaches metadata longer than offset.metadata.max.bytes. */
  readonly metadataTooLargePpm: number;
  /** The metadata string's length when it is too large. */
  readonly tooLargeMetadataBytes: number;
  readonly retryBackoffMs: number;
  readonly requestTimeoutMs: number;
}

/** The choice stream of the committers' metadata draws. */
export const COMMITTER_STREAM = "workload:committer";

/**
 * A consumer that commits its position with a plain OffsetCommit (commitSync with offset metadata,
 * as an at-least-once application does) and reads its committed offsets back with require_stable
 * OffsetFetch (KIP-447, as every Java consumer since 2.5 does for read_committed) when it starts
 * and after each restart; it retries UNSTABLE_OFFSET_COMMIT, as KafkaConsumer's
 * refreshCommittedOffsets does, until the offsets are stable. It uses manual assignment
 * (assign(): generation -1, no member id), the simple commit ClassicGroup.validateOffsetCommit
 * accepts for an empty group. It reads no records: its position moves by one per partition per
 * commit, standing for what it consumed (the oracle judges nothing about these offsets, only
 * whether they can be read back).
 */
export class OffsetCommitter {
  private readonly connections: ConnectionPool<KafkaRequest, KafkaResponse>;
  private readonly positions = new Map<PartitionKey, number>();
  private stopped = false;
  /** Bumped at each restart: answers of an older round are ignored. */
  private round = 0;
  private commitsThisRound = 0;
  /** OffsetFetch answers UNSTABLE_OFFSET_COMMIT since this time (null: not waiting). */
  unstableSinceMs: number | null = null;

  constructor(
    private readonly ctx: ClusterContext,
    readonly name: string,
    private readonly metadata: ClientMetadata,
    private readonly partitions: readonly PartitionKey[],
    private readonly settings: OffsetCommitterSettings,
  ) {
    this.connections = new ConnectionPool(ctx.net, name);
  }

  get groupId(): string {
    return this.settings.groupId;
  }

  /** The partitions it commits (manual assignment). */
  get assigned(): readonly PartitionKey[] {
    return this.partitions;
  }

  start(): void {
    this.restart();
  }

  /** The application stops with the workload: nothing more is sent. */
  stop(): void {
    this.stopped = true;
    this.round++;
  }

  private restart(): void {
    if (this.stopped) return;
    this.round++;
    this.commitsThisRound = 0;
    this.positions.clear();
    this.fetchCommitted(this.round);
  }

  private send(round: number, request: KafkaRequest, onAnswer: (r: RpcResult<KafkaResponse>) => void): void {
    this.metadata.findGroupCoordinator(this.settings.groupId, (node) => {
      if (round !== this.round) return;
      if (node === null) return onAnswer({ kind: "disconnected", reason: "no group coordinator" });
      this.ctx.net.request(this.connections.to(node), request, this.settings.requestTimeoutMs, (r) => {
        if (round === this.round) onAnswer(r);
      });
    });
  }

  private later(round: number, ms: number, action: () => void): void {
    this.ctx.sim.schedule(ms, () => {
      if (round === this.round && !this.stopped) action();
    });
  }

  private fetchCommitted(round: number): void {
    const request: KafkaRequest = {
      api: "OffsetFetch",
      groupId: this.settings.groupId,
      partitions: [...this.partitions],
      requireStable: true,
    };
    this.send(round, request, (r) => {
      const body = r.kind === "response" && r.body.api === "OffsetFetch" ? r.body : null;
      const unstable = body?.partitions.some((p) => p.errorCode === Errors.UNSTABLE_OFFSET_COMMIT) ?? false;
      if (unstable && this.unstableSinceMs === null) this.unstableSinceMs = this.ctx.sim.nowMs;
      if (body === null || body.errorCode !== Errors.NONE || body.partitions.some((p) => p.errorCode !== 0)) {
        if (
          body === null ||
          body.errorCode === Errors.NOT_COORDINATOR ||
          body.errorCode === Errors.COORDINATOR_NOT_AVAILABLE
        )
          this.metadata.markGroupCoordinatorUnknown(this.settings.groupId);
        return this.later(round, this.settings.retryBackoffMs, () => this.fetchCommitted(round));
      }
      this.unstableSinceMs = null;
      for (const p of body.partitions) this.positions.set(p.partition, Math.max(0, p.offset));
      this.later(round, this.settings.commitIntervalMs, () => this.commit(round));
    });
  }

  private commit(round: number): void {
    const offsets = this.partitions.map((partition) => {
      const offset = (this.positions.get(partition) ?? 0) + 1;
      this.positions.set(partition, offset);
      const tooLarge = this.ctx.choices.chance(COMMITTER_STREAM, this.settings.metadataTooLargePpm);
      const metadata = tooLarge ? "m".repeat(this.settings.tooLargeMetadataBytes) : `${this.name}@${offset}`;
      return { partition, offset, metadata };
    });
    const request: KafkaRequest = {
      api: "OffsetCommit",
      groupId: this.settings.groupId,
      memberId: "",
      groupInstanceId: null,
      generationId: -1,
      offsets,
    };
    this.send(round, request, (r) => {
      const body = r.kind === "response" && r.body.api === "OffsetCommit" ? r.body : null;
      if (
        body === null ||
        body.errorCode === Errors.NOT_COORDINATOR ||
        body.errorCode === Errors.COORDINATOR_NOT_AVAILABLE
      )
        this.metadata.markGroupCoordinatorUnknown(this.settings.groupId);
      // OFFSET_METADATA_TOO_LARGE is not retriable: commitSync throws it to the application, which
      // goes on (the next commit carries its position again); a retriable error waits for the next commit.
      this.commitsThisRound++;
      if (this.commitsThisRound >= this.settings.commitsPerRestart) return this.later(round, 0, () => this.restart());
      this.later(round, this.settings.commitIntervalMs, () => this.commit(round));
    });
  }
}
