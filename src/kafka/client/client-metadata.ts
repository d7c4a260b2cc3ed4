import type { Stream } from "../../sim/choice-tape.js";
import { ConnectionPool, type RpcResult } from "../../sim/network.js";
import { Errors } from "../common/errors.js";
import type { PartitionKey } from "../common/types.js";
import type { ClusterContext } from "../cluster-context.js";
import type { LeaderIdAndEpoch } from "../current-leader.js";
import type { KafkaRequest, KafkaResponse } from "../protocol.js";

/** A partition's leader as a client last learned it. */
export interface KnownLeader {
  leader: string | null;
  leaderEpoch: number;
}

/** Client timing (Kafka's config names), scaled by the scenario. */
export interface ClientMetadataConfig {
  /** retry.backoff.ms: the wait before a metadata refresh or a FindCoordinator retry. */
  retryBackoffMs: number;
  /** request.timeout.ms of these requests. */
  requestTimeoutMs: number;
}

/** What a client's metadata starts from and how it behaves. */
export interface ClientMetadataOptions {
  /** The bootstrap brokers, asked in turn. */
  readonly brokers: readonly string[];
  /** The leaders the client knows at its start. */
  readonly bootstrap: ReadonlyMap<PartitionKey, KnownLeader>;
  readonly config: ClientMetadataConfig;
  /** Cut this client off (a stopped consumer, a closed producer): nothing is sent any more. */
  readonly closed?: () => boolean;
  /** Told of each new connection (the owner's ApiVersions learns the broker's finalized features). */
  readonly onConnect?: ((server: string) => void) | null;
}

/** Bound on callbacks waiting for one refresh (a client that queues more is looping). */
const MAX_WAITERS = 10_000;

/**
 * A client's metadata (Metadata + the coordinator cache of TransactionManager): which broker leads
 * each partition, at which leader epoch, and which broker coordinates each transactional.id. It is
 * refreshed on request (after NOT_LEADER_OR_FOLLOWER, NOT_COORDINATOR and the like) by a Metadata
 * or FindCoordinator request to some broker, which answers from its own metadata image: so a
 * client can be behind a broker, and a broker behind the controller. A Produce or Fetch error
 * response naming a newer leader updates a partition at once (KIP-951).
 */
export class ClientMetadata {
  private readonly leaders = new Map<PartitionKey, KnownLeader>();
  private readonly coordinators = new Map<string, string>();
  private readonly connections: ConnectionPool<KafkaRequest, KafkaResponse>;
  private refreshWaiters: (() => void)[] | null = null;
  private readonly lookups = new Map<string, ((node: string | null) => void)[]>();
  private readonly stream: Stream;

  private readonly brokers: readonly string[];
  private readonly config: ClientMetadataConfig;
  private readonly closed: () => boolean;

  constructor(
    private readonly ctx: ClusterContext,
    private readonly client: string,
    options: ClientMetadataOptions,
  ) {
    this.brokers = options.brokers;
    this.config = options.config;
    this.closed = options.closed ?? (() => false);
    for (const [p, known] of options.bootstrap) this.leaders.set(p, known);
    this.connections = new ConnectionPool(ctx.net, client, options.onConnect ?? null);
    this.stream = ctx.choices.stream(`metadata:${client}`);
  }

  leaderOf(partition: PartitionKey): KnownLeader | null {
    return this.leaders.get(partition) ?? null;
  }

  coordinatorOf(transactionalId: string): string | null {
    return this.coordinators.get(transactionalId) ?? null;
  }

  /** Forget the coordinator (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, a disconnect): the next send looks it up. */
  markCoordinatorUnknown(transactionalId: string): void {
    this.coordinators.delete(transactionalId);
  }

  /** NetworkClient.leastLoadedNode, where the idempotent producer's InitProducerId goes: any broker, drawn. */
  leastLoadedNode(): string {
    return this.anyBroker();
  }

  /** A broker to ask: drawn among the bootstrap brokers (a client does not know which are up). */
  private anyBroker(): string {
    return this.brokers[this.stream.pick(this.brokers.length)] as string;
  }

  /**
   * Metadata.requestUpdate: one refresh at a time, sent after retry.backoff.ms; `then` runs when
   * it is answered (or failed: the caller retries and asks again).
   */
  requestUpdate(then: () => void): void {
    if (this.refreshWaiters !== null) {
      if (this.refreshWaiters.length >= MAX_WAITERS) throw new Error(`${this.client}: too many metadata waiters`);
      this.refreshWaiters.push(then);
      return;
    }
    this.refreshWaiters = [then];
    this.ctx.sim.schedule(this.config.retryBackoffMs, () => {
      if (this.closed()) return this.finishRefresh();
      const broker = this.anyBroker();
      this.ctx.net.request(this.connections.to(broker), { api: "Metadata" }, this.config.requestTimeoutMs, (r) => {
        if (r.kind === "response" && r.body.api === "Metadata" && r.body.errorCode === Errors.NONE) {
          for (const p of r.body.partitions) {
            const known = this.leaders.get(p.partition);
            // An older epoch from a broker further behind never replaces what we know.
            if (!known || p.leaderEpoch >= known.leaderEpoch)
              this.leaders.set(p.partition, { leader: p.leader, leaderEpoch: p.leaderEpoch });
          }
        }
        this.finishRefresh();
      });
    });
  }

  /**
   * Metadata.updatePartitionLeadership (KIP-951): take the leaders a Produce or Fetch error
   * response named, in Kafka's order of tests: skip one without both an id and an epoch, one not
   * newer than the epoch cached (an equal epoch too), and a partition not cached at all. (Kafka
   * also skips a leader whose node is in neither the response's NodeEndpoints nor the cached
   * nodes; the model's clients know every broker from the bootstrap list, so that test passes.)
   * Returns the partitions whose leader changed. A refresh is still requested by the caller.
   */
  updatePartitionLeadership(partitionLeaders: ReadonlyMap<PartitionKey, LeaderIdAndEpoch>): PartitionKey[] {
    const updated: PartitionKey[] = [];
    for (const [partition, newLeader] of partitionLeaders) {
      const currentLeader = this.leaders.get(partition) ?? null;
      if (newLeader.leaderEpoch < 0 || newLeader.leaderId === null) continue;
      if (
        currentLeader !== null &&
        currentLeader.leaderEpoch >= 0 &&
        newLeader.leaderEpoch <= currentLeader.leaderEpoch
      )
        continue;
      if (currentLeader === null) continue;
      this.leaders.set(partition, { leader: newLeader.leaderId, leaderEpoch: newLeader.leaderEpoch });
      updated.push(partition);
    }
    return updated;
  }

  private finishRefresh(): void {
    const waiters = this.refreshWaiters ?? [];
    this.refreshWaiters = null;
    for (const w of waiters) w();
  }

  /**
   * The coordinator of `transactionalId`: cached, else FindCoordinator to some broker, asked again
   * after retry.backoff.ms on a failure or an error `retryOn` retries (every error when absent: the
   * consumers' lookups). `then(null)` when closed, or when `retryOn` refused an error.
   */
  findCoordinator(
    transactionalId: string,
    then: (node: string | null) => void,
    retryOn: CoordinatorErrorJudge = retryAll,
  ): void {
    this.findCoordinatorOf(transactionalId, { api: "FindCoordinator", key: transactionalId }, then, retryOn);
  }

  /** The group coordinator of `groupId` (FindCoordinator with key type GROUP), cached apart from transactional ids. */
  findGroupCoordinator(
    groupId: string,
    then: (node: string | null) => void,
    retryOn: CoordinatorErrorJudge = retryAll,
  ): void {
    this.findCoordinatorOf(
      groupCacheKey(groupId),
      { api: "FindCoordinator", key: groupId, keyType: "GROUP" },
      then,
      retryOn,
    );
  }

  markGroupCoordinatorUnknown(groupId: string): void {
    this.coordinators.delete(groupCacheKey(groupId));
  }

  private findCoordinatorOf(
    transactionalId: string,
    request: KafkaRequest,
    then: (node: string | null) => void,
    retryOn: CoordinatorErrorJudge,
  ): void {
    const known = this.coordinators.get(transactionalId);
    if (known !== undefined) return then(known);
    const waiting = this.lookups.get(transactionalId);
    if (waiting) {
      if (waiting.length >= MAX_WAITERS) throw new Error(`${this.client}: too many coordinator lookups`);
      waiting.push(then);
      return;
    }
    this.lookups.set(transactionalId, [then]);
    this.sendFindCoordinator(transactionalId, request, 0, retryOn);
  }

  private sendFindCoordinator(
    transactionalId: string,
    request: KafkaRequest,
    delayMs: number,
    retryOn: CoordinatorErrorJudge,
  ): void {
    this.ctx.sim.schedule(delayMs, () => {
      if (this.closed()) return this.finishLookup(transactionalId, null);
      const broker = this.anyBroker();
      this.ctx.net.request(this.connections.to(broker), request, this.config.requestTimeoutMs, (r) =>
        this.onFindCoordinator(transactionalId, request, r, retryOn),
      );
    });
  }

  private onFindCoordinator(
    transactionalId: string,
    request: KafkaRequest,
    r: RpcResult<KafkaResponse>,
    retryOn: CoordinatorErrorJudge,
  ): void {
    if (
      r.kind === "response" &&
      r.body.api === "FindCoordinator" &&
      r.body.errorCode === Errors.NONE &&
      r.body.nodeId
    ) {
      this.coordinators.set(transactionalId, r.body.nodeId);
      return this.finishLookup(transactionalId, r.body.nodeId);
    }
    // A disconnect is asked again (FindCoordinator needs no coordinator); an error as the caller says.
    const errorCode = r.kind === "response" && r.body.api === "FindCoordinator" ? r.body.errorCode : null;
    if (errorCode !== null && errorCode !== Errors.NONE && !retryOn(errorCode))
      return this.finishLookup(transactionalId, null);
    this.sendFindCoordinator(transactionalId, request, this.config.retryBackoffMs, retryOn);
  }

  private finishLookup(transactionalId: string, node: string | null): void {
    const waiters = this.lookups.get(transactionalId) ?? [];
    this.lookups.delete(transactionalId);
    for (const w of waiters) w(node);
  }
}

/** Whether a FindCoordinator error is asked again (true) or ends the lookup. */
export type CoordinatorErrorJudge = (errorCode: number) => boolean;

function retryAll(): boolean {
  return true;
}

/** A group's entry in the coordinator cache (a transactional.id could be spelled like a group id). */
function groupCacheKey(groupId: string): string {
  return `group:${groupId}`;
}
