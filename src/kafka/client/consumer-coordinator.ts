import { ConnectionPool, type RpcResult } from "../../sim/network.js";
import { Errors } from "../common/errors.js";
import type { PartitionKey } from "../common/types.js";
import type { ClusterContext } from "../cluster-context.js";
import type { KafkaRequest, KafkaResponse } from "../protocol.js";
import type { ClientMetadata } from "./client-metadata.js";
import type { ConsumerGroupMetadata } from "./txn-request.js";

export interface ConsumerCoordinatorConfig {
  /** Node name in traces. */
  readonly name: string;
  readonly groupId: string;
  /** group.instance.id (KIP-345 static membership), or null. */
  readonly groupInstanceId: string | null;
  readonly heartbeatIntervalMs: number;
  readonly retryBackoffMs: number;
  readonly requestTimeoutMs: number;
}

/** What the application hears (ConsumerRebalanceListener, eager protocol). */
export interface RebalanceListener {
  /** A generation completed: the member owns `partitions` under `group` until told otherwise. */
  assigned(group: ConsumerGroupMetadata, partitions: readonly PartitionKey[]): void;
  /** The member must stop processing what it owned (a rebalance began, or its membership was lost). */
  revoked(reason: string): void;
}

export type MemberState = "unjoined" | "joining" | "syncing" | "stable" | "fenced" | "left";

/**
 * ConsumerCoordinator over AbstractCoordinator, classic protocol, reduced to membership: find the
 * group coordinator, JoinGroup, SyncGroup, heartbeat every heartbeat.interval.ms, and rejoin as the
 * answers say (REBALANCE_IN_PROGRESS: rejoin with the member id; ILLEGAL_GENERATION: the same;
 * UNKNOWN_MEMBER_ID: rejoin as a new member; FENCED_INSTANCE_ID: fatal, the member stops; a moved
 * or unavailable coordinator: look it up again). Eager: every rejoin revokes everything first.
 * A paused member (a zombie: a long GC, a stalled host) sends nothing until it resumes.
 */
export class ConsumerCoordinator {
  private stateValue: MemberState = "unjoined";
  private memberId = "";
  private generationId = -1;
  private pausedUntilMs = 0;
  private readonly connections: ConnectionPool<KafkaRequest, KafkaResponse>;
  /** Bumped on every new join: answers and timers of an older round are ignored. */
  private round = 0;

  constructor(
    private readonly ctx: ClusterContext,
    private readonly config: ConsumerCoordinatorConfig,
    private readonly metadata: ClientMetadata,
    private readonly listener: RebalanceListener,
  ) {
    this.connections = new ConnectionPool(ctx.net, config.name);
  }

  get state(): MemberState {
    return this.stateValue;
  }

  /** ConsumerGroupMetadata, as KafkaConsumer.groupMetadata() gives it to sendOffsetsToTransaction. */
  groupMetadata(): ConsumerGroupMetadata {
    return {
      groupId: this.config.groupId,
      generationId: this.generationId,
      memberId: this.memberId,
      groupInstanceId: this.config.groupInstanceId,
    };
  }

  start(): void {
    this.join(0);
  }

  /** Zombie fault: nothing is sent before `untilMs` (its heartbeats stop; the group may expel it). */
  pause(untilMs: number): void {
    this.pausedUntilMs = Math.max(this.pausedUntilMs, untilMs);
  }

  /** The process died: nothing more is sent (no LeaveGroup; the session timeout expels the member). */
  kill(): void {
    this.stateValue = "left";
    this.round++;
  }

  /** LeaveGroup (KafkaConsumer.close): the others rebalance at once instead of after the session timeout. */
  leave(): void {
    if (this.stateValue === "left" || this.stateValue === "fenced") return;
    const memberId = this.memberId;
    this.stateValue = "left";
    this.round++;
    if (memberId === "") return;
    this.send(
      { api: "LeaveGroup", groupId: this.config.groupId, memberId, groupInstanceId: this.config.groupInstanceId },
      () => {},
    );
  }

  private get active(): boolean {
    return this.stateValue !== "left" && this.stateValue !== "fenced";
  }

  /** Run `action` after `delayMs`, or once the pause is over, if this round is still current. */
  private later(delayMs: number, action: () => void): void {
    const round = this.round;
    const at = Math.max(this.ctx.sim.nowMs + delayMs, this.pausedUntilMs);
    this.ctx.sim.schedule(at - this.ctx.sim.nowMs, () => {
      if (round !== this.round || !this.active) return;
      if (this.pausedUntilMs > this.ctx.sim.nowMs) return this.later(0, action);
      action();
    });
  }

  /** To the group coordinator (looked up first when unknown). */
  private send(body: KafkaRequest, onResult: (r: RpcResult<KafkaResponse>) => void): void {
    this.metadata.findGroupCoordinator(this.config.groupId, (node) => {
      if (node === null) return;
      this.ctx.net.request(this.connections.to(node), body, this.config.requestTimeoutMs, onResult);
    });
  }

  private errorOf(
    r: RpcResult<KafkaResponse>,
    api: KafkaResponse["api"],
  ): { errorCode: number; body: KafkaResponse | null } {
    if (r.kind !== "response" || r.body.api !== api) return { errorCode: Errors.NETWORK_EXCEPTION, body: null };
    return { errorCode: (r.body as { errorCode: number }).errorCode, body: r.body };
  }

  /** A coordinator that moved, is unavailable or unreachable: look it up again. True if that was the error. */
  private coordinatorLost(errorCode: number): boolean {
    if (
      errorCode !== Errors.NOT_COORDINATOR &&
      errorCode !== Errors.COORDINATOR_NOT_AVAILABLE &&
      errorCode !== Errors.NETWORK_EXCEPTION
    )
      return false;
    this.metadata.markGroupCoordinatorUnknown(this.config.groupId);
    return true;
  }

  // ------------------------------------------------------------------ join and sync

  private join(delayMs: number): void {
    this.round++;
    this.stateValue = "joining";
    this.later(delayMs, () => {
      const round = this.round;
      const request: KafkaRequest = {
        api: "JoinGroup",
        groupId: this.config.groupId,
        memberId: this.memberId,
        groupInstanceId: this.config.groupInstanceId,
      };
      this.send(request, (r) => {
        if (round === this.round && this.active) this.onJoin(r);
      });
    });
  }

  private onJoin(r: RpcResult<KafkaResponse>): void {
    const { errorCode, body } = this.errorOf(r, "JoinGroup");
    if (errorCode === Errors.NONE && body?.api === "JoinGroup") {
      this.memberId = body.memberId;
      this.generationId = body.generationId;
      return this.sync();
    }
    if (errorCode === Errors.FENCED_INSTANCE_ID) return this.fence("JoinGroup: FENCED_INSTANCE_ID");
    if (errorCode === Errors.UNKNOWN_MEMBER_ID) this.memberId = "";
    this.coordinatorLost(errorCode);
    this.join(this.config.retryBackoffMs);
  }

  private sync(): void {
    this.stateValue = "syncing";
    const round = this.round;
    this.send({ api: "SyncGroup", ...this.memberFields() }, (r) => {
      if (round === this.round && this.active) this.onSync(r);
    });
  }

  private onSync(r: RpcResult<KafkaResponse>): void {
    const { errorCode, body } = this.errorOf(r, "SyncGroup");
    if (errorCode === Errors.NONE && body?.api === "SyncGroup") {
      this.stateValue = "stable";
      this.listener.assigned(this.groupMetadata(), body.assignment);
      return this.heartbeatLater();
    }
    this.rejoinAfter(errorCode, "SyncGroup");
  }

  // ------------------------------------------------------------------ heartbeats

  private heartbeatLater(): void {
    this.later(this.config.heartbeatIntervalMs, () => {
      const round = this.round;
      this.send({ api: "Heartbeat", ...this.memberFields() }, (r) => {
        if (round === this.round && this.active) this.onHeartbeat(r);
      });
    });
  }

  private onHeartbeat(r: RpcResult<KafkaResponse>): void {
    const { errorCode } = this.errorOf(r, "Heartbeat");
    if (errorCode === Errors.NONE) return this.heartbeatLater();
    if (this.coordinatorLost(errorCode)) return this.heartbeatLater();
    this.listener.revoked(`Heartbeat: ${errorCode}`);
    this.rejoinAfter(errorCode, "Heartbeat");
  }

  /** An answer that ends the member's generation: rejoin (as a new member after UNKNOWN_MEMBER_ID), or stop when fenced. */
  private rejoinAfter(errorCode: number, api: string): void {
    if (errorCode === Errors.FENCED_INSTANCE_ID) return this.fence(`${api}: FENCED_INSTANCE_ID`);
    if (errorCode === Errors.UNKNOWN_MEMBER_ID) this.memberId = "";
    const backoff = this.coordinatorLost(errorCode) ? this.config.retryBackoffMs : 0;
    this.join(backoff);
  }

  private fence(reason: string): void {
    this.stateValue = "fenced";
    this.round++;
    this.listener.revoked(reason);
  }

  private memberFields(): { groupId: string; memberId: string; groupInstanceId: string | null; generationId: number } {
    return {
      groupId: this.config.groupId,
      memberId: this.memberId,
      groupInstanceId: this.config.groupInstanceId,
      generationId: this.generationId,
    };
  }
}
