import type { Simulation } from "../../sim/simulation.js";
import type { KafkaEvents } from "../trace-events.js";
import { Errors } from "../common/errors.js";
import type { PartitionKey, TransactionVersion } from "../common/types.js";
import type {
  BrokerLiveness,
  BrokerRegistration,
  FeaturesImage,
  MetadataImage,
  PartitionRegistration,
} from "./metadata-image.js";

/** A partition as created: its assignment, and whether an unclean election may pick a replica outside the ISR. */
export interface PartitionAssignment {
  partition: PartitionKey;
  replicas: readonly string[];
  uncleanLeaderElectionEnable: boolean;
}

/** Why the controller changed a partition's leader (for the trace and the oracle's leadership history). */
export type ElectionCause =
  | "controlled-shutdown"
  | "broker-fenced"
  | "broker-unfenced"
  | "preferred"
  | "reassign"
  | "unclean";

/** One leader change as the controller decided it. */
export interface LeaderChange {
  partition: PartitionKey;
  leader: string | null;
  previousLeader: string | null;
  leaderEpoch: number;
  isr: readonly string[];
  cause: ElectionCause;
  atMs: number;
}

export type AlterPartitionResult =
  | { errorCode: typeof Errors.NONE; registration: PartitionRegistration }
  | { errorCode: number; registration: PartitionRegistration };

/**
 * The KRaft quorum controller, reduced to what leadership and the ISR need: broker liveness
 * (ReplicationControlManager.handleBrokerFenced / handleBrokerInControlledShutdown /
 * handleBrokerUnfenced), leader election (PartitionChangeBuilder.electAnyLeader, unclean when the
 * topic allows it), AlterPartition from leaders, and preferred-leader election. Each decision is one
 * new metadata image, handed to `publish` (the cluster delivers it to every broker after a drawn
 * delay). The controller itself never fails and decides at once (see the model limits).
 */
export class QuorumController {
  private current: MetadataImage;
  private readonly unclean = new Map<PartitionKey, boolean>();

  constructor(
    private readonly sim: Simulation<KafkaEvents>,
    brokers: readonly string[],
    assignments: readonly PartitionAssignment[],
    private readonly publish: (image: MetadataImage, changes: readonly LeaderChange[]) => void,
    bootstrapTransactionVersion: TransactionVersion = 0,
  ) {
    const partitions = new Map<PartitionKey, PartitionRegistration>();
    for (const a of assignments) {
      const leader = a.replicas[0] ?? null;
      partitions.set(
        a.partition,
        registration({
          partition: a.partition,
          replicas: [...a.replicas],
          isr: [...a.replicas],
          leader,
          leaderEpoch: 0,
          partitionEpoch: 0,
          leaderRecoveryState: "RECOVERED",
        }),
      );
      this.unclean.set(a.partition, a.uncleanLeaderElectionEnable);
    }
    const registrations = new Map<string, BrokerRegistration>(brokers.map((id) => [id, { id, liveness: "active" }]));
    const features: FeaturesImage = { transactionVersion: bootstrapTransactionVersion, epoch: 0 };
    this.current = { offset: 0, partitions, brokers: registrations, features };
  }

  get image(): MetadataImage {
    return this.current;
  }

  // ------------------------------------------------------------------ broker liveness

  /** The broker asked to shut down: out of every ISR, new leaders for what it led. */
  controlledShutdown(broker: string): void {
    this.changeBroker(broker, "controlled-shutdown", "controlled-shutdown");
  }

  /** The broker's session expired (a crash): fenced, out of every ISR, new leaders for what it led. */
  fence(broker: string): void {
    this.changeBroker(broker, "fenced", "broker-fenced");
  }

  /** The broker registered again after a restart: eligible again; offline partitions it is in the ISR of come back. */
  unfence(broker: string): void {
    this.changeBroker(broker, "active", "broker-unfenced");
  }

  private changeBroker(broker: string, liveness: BrokerLiveness, cause: ElectionCause): void {
    const registration = this.current.brokers.get(broker);
    if (!registration) throw new Error(`unknown broker ${broker}`);
    if (registration.liveness === liveness) return;
    const brokers = new Map(this.current.brokers);
    brokers.set(broker, { id: broker, liveness });
    const partitions = new Map(this.current.partitions);
    const changes: LeaderChange[] = [];
    const leaving = liveness !== "active";
    for (const reg of this.current.partitions.values()) {
      if (!reg.replicas.includes(broker)) continue;
      const isr = leaving ? withoutReplica(reg.isr, broker) : reg.isr;
      const next = this.elect(reg, isr, brokers);
      if (next !== reg) partitions.set(reg.partition, next);
      if (next.leader !== reg.leader) changes.push(this.changeOf(reg, next, cause));
    }
    this.commit(partitions, brokers, changes);
  }

  // ------------------------------------------------------------------ elections

  /** Preferred-leader election (auto.leader.rebalance): leadership back to replicas[0] where it is in the ISR and active. */
  electPreferredLeaders(): void {
    const partitions = new Map(this.current.partitions);
    const changes: LeaderChange[] = [];
    for (const reg of this.current.partitions.values()) {
      const preferred = reg.replicas[0] as string;
      if (reg.leader === preferred || !reg.isr.includes(preferred) || !this.isActive(preferred)) continue;
      const next = this.withLeader(reg, preferred, reg.isr, "RECOVERED");
      partitions.set(reg.partition, next);
      changes.push(this.changeOf(reg, next, "preferred"));
    }
    if (changes.length > 0) this.commit(partitions, this.current.brokers, changes);
  }

  /**
   * Move one partition's leadership to the next eligible ISR member after the current leader (what
   * an operator's reassignment or kafka-leader-election does). False when no other member is eligible.
   */
  moveLeader(partition: PartitionKey): boolean {
    const reg = this.registration(partition);
    const candidates = reg.replicas.filter((r) => r !== reg.leader && reg.isr.includes(r) && this.isActive(r));
    const target = candidates[0];
    if (target === undefined) return false;
    const next = this.withLeader(reg, target, reg.isr, "RECOVERED");
    const partitions = new Map(this.current.partitions);
    partitions.set(partition, next);
    this.commit(partitions, this.current.brokers, [this.changeOf(reg, next, "reassign")]);
    return true;
  }

  /**
   * PartitionChangeBuilder.electAnyLeader over the ISR `isr`: keep a valid leader; else the first
   * replica in assignment order that is in the ISR and active; else, if the topic allows it, the
   * first active replica (unclean: the ISR becomes that replica alone); else no leader (the ISR
   * keeps its members). Returns `original` itself when nothing changes.
   */
  private elect(
    original: PartitionRegistration,
    isr: readonly string[],
    brokers: ReadonlyMap<string, BrokerRegistration>,
  ): PartitionRegistration {
    const active = (b: string) => brokers.get(b)?.liveness === "active";
    const reg =
      isr === original.isr ? original : registration(original, { isr, partitionEpoch: original.partitionEpoch + 1 });
    if (reg.leader !== null && active(reg.leader) && isr.includes(reg.leader)) return reg;
    const clean = reg.replicas.find((r) => isr.includes(r) && active(r));
    if (clean !== undefined) return this.withLeader(original, clean, isr, original.leaderRecoveryState);
    if (this.unclean.get(reg.partition)) {
      const any = reg.replicas.find(active);
      if (any !== undefined) return this.withLeader(original, any, [any], "RECOVERING");
    }
    return reg.leader === null ? reg : this.withLeader(original, null, isr, original.leaderRecoveryState);
  }

  // ------------------------------------------------------------------ AlterPartition

  /**
   * AlterPartition from a leader (ISR expand or shrink): refused when the leader's epoch or the
   * partition epoch is stale, or when a new member is not active; else the ISR changes with a
   * partition-epoch bump and no leader-epoch bump (metadata.version 3.6+).
   */
  alterPartition(
    partition: PartitionKey,
    leader: string,
    leaderEpoch: number,
    partitionEpoch: number,
    newIsr: readonly string[],
  ): AlterPartitionResult {
    const reg = this.registration(partition);
    if (reg.leader !== leader || reg.leaderEpoch !== leaderEpoch)
      return { errorCode: Errors.FENCED_LEADER_EPOCH, registration: reg };
    if (reg.partitionEpoch !== partitionEpoch) return { errorCode: Errors.INVALID_UPDATE_VERSION, registration: reg };
    if (newIsr.some((b) => !reg.isr.includes(b) && !this.isActive(b)))
      return { errorCode: Errors.INELIGIBLE_REPLICA, registration: reg };
    const next = registration(reg, {
      isr: [...newIsr],
      partitionEpoch: reg.partitionEpoch + 1,
      leaderRecoveryState: "RECOVERED",
    });
    const partitions = new Map(this.current.partitions);
    partitions.set(partition, next);
    this.sim.emit("controller", "controller.isr", {
      partition,
      isr: next.isr.join(","),
      leader,
      leaderEpoch,
      partitionEpoch: next.partitionEpoch,
    });
    this.commit(partitions, this.current.brokers, []);
    return { errorCode: Errors.NONE, registration: next };
  }

  // ------------------------------------------------------------------ plumbing

  registration(partition: PartitionKey): PartitionRegistration {
    const reg = this.current.partitions.get(partition);
    if (!reg) throw new Error(`unknown partition ${partition}`);
    return reg;
  }

  isActive(broker: string): boolean {
    return this.current.brokers.get(broker)?.liveness === "active";
  }

  private withLeader(
    reg: PartitionRegistration,
    leader: string | null,
    isr: readonly string[],
    recovery: PartitionRegistration["leaderRecoveryState"],
  ): PartitionRegistration {
    return registration(reg, {
      leader,
      isr: [...isr],
      leaderEpoch: reg.leaderEpoch + 1,
      partitionEpoch: reg.partitionEpoch + 1,
      leaderRecoveryState: recovery,
    });
  }

  private changeOf(before: PartitionRegistration, after: PartitionRegistration, cause: ElectionCause): LeaderChange {
    const unclean = after.leaderRecoveryState === "RECOVERING" && before.leaderRecoveryState !== "RECOVERING";
    return {
      partition: after.partition,
      leader: after.leader,
      previousLeader: before.leader,
      leaderEpoch: after.leaderEpoch,
      isr: after.isr,
      cause: unclean ? "unclean" : cause,
      atMs: this.sim.nowMs,
    };
  }

  /**
   * UpdateFeatures for transaction.version (FeatureControlManager.updateFeature): refused with
   * INVALID_UPDATE_VERSION when a registered broker's release does not support the level, else one
   * FeatureLevelRecord, a new image whose finalized-features epoch is its offset. A downgrade is
   * taken as `kafka-features.sh downgrade` asks it (transaction.version changes no metadata format).
   */
  updateTransactionVersion(level: TransactionVersion, supports: (broker: string) => boolean): number {
    const current = this.current;
    const unsupported = [...current.brokers.keys()].find((b) => !supports(b));
    if (unsupported !== undefined) {
      this.sim.emit("controller", "controller.features", {
        transactionVersion: current.features.transactionVersion,
        epoch: current.features.epoch,
        errorCode: Errors.INVALID_UPDATE_VERSION,
        reason: `${unsupported} does not support transaction.version ${level}`,
      });
      return Errors.INVALID_UPDATE_VERSION;
    }
    const offset = current.offset + 1;
    this.current = { ...current, offset, features: { transactionVersion: level, epoch: offset } };
    this.sim.emit("controller", "controller.features", {
      transactionVersion: level,
      epoch: offset,
      errorCode: Errors.NONE,
      reason: "",
    });
    this.publish(this.current, []);
    return Errors.NONE;
  }

  private commit(
    partitions: Map<PartitionKey, PartitionRegistration>,
    brokers: ReadonlyMap<string, BrokerRegistration>,
    changes: readonly LeaderChange[],
  ): void {
    this.current = { offset: this.current.offset + 1, partitions, brokers, features: this.current.features };
    for (const c of changes) {
      this.sim.emit("controller", "controller.leader", {
        partition: c.partition,
        leader: c.leader,
        from: c.previousLeader,
        leaderEpoch: c.leaderEpoch,
        isr: c.isr.join(","),
        cause: c.cause,
      });
    }
    this.publish(this.current, changes);
  }
}

/** The ISR without `broker`; the last member stays (no eligible leader replicas: KIP-966 is not modelled). */
function withoutReplica(isr: readonly string[], broker: string): readonly string[] {
  if (!isr.includes(broker)) return isr;
  const rest = isr.filter((b) => b !== broker);
  return rest.length > 0 ? rest : isr;
}

/**
 * `base` with `changes` applied. Every registration is built by this one object literal, in one
 * property order: registrations made by spreading would get another hidden class in V8 than the
 * first ones, and every broker path that reads them would be recompiled when the second appears.
 */
function registration(
  base: PartitionRegistration,
  changes: Partial<PartitionRegistration> = {},
): PartitionRegistration {
  const r = { ...base, ...changes };
  return {
    partition: r.partition,
    replicas: r.replicas,
    isr: r.isr,
    leader: r.leader,
    leaderEpoch: r.leaderEpoch,
    partitionEpoch: r.partitionEpoch,
    leaderRecoveryState: r.leaderRecoveryState,
  };
}
