import { deleteRecordsUpToHighWatermark } from "./delete-records.js";
import type { TransactionalProducer } from "./client/transactional-producer.js";
import type { Cluster } from "./cluster.js";
import type { TransactionVersion } from "./common/types.js";
import type { FaultTargets } from "./faults/node-fault.js";
import { NODE_FAULT_LIST } from "./faults/registry.js";
import type { ReleaseName } from "./release.js";

/** Bound on producer restarts per run (each creates a new instance). */
const MAX_RESTARTS = 64;

/** Bound on broker stops (shutdowns and crashes) per run. */
const MAX_BROKER_STOPS = 64;

/** How often a rolling upgrade looks whether the restarted broker is back in every ISR. */
const CATCH_UP_POLL_MS = 50;

/**
 * Node-level faults, drawn every tick while faults are on: first the registered ones
 * (src/kafka/faults/: broker stalls, cuts between brokers, coordinator failovers, transaction-log
 * outages, leader moves, controlled shutdowns and crashes with their restarts, then for each
 * producer its pauses (zombies) and restarts). At most `maxBrokersDown` brokers are down at a time (by default one: maintenance, not a disaster).
 * Scheduled upgrades and a rolling upgrade run at their times regardless of the fault window, and
 * the controller's preferred-leader election runs every leader.imbalance.check.interval.ms.
 */
export class Nemesis {
  private active = false;
  private restarts = 0;
  private brokerStops = 0;
  /** Brokers down by the nemesis's hand, with their restart. */
  private readonly down = new Map<string, () => void>();
  readonly zombies: TransactionalProducer[] = [];

  /** What the registered faults may do to the cluster. */
  private readonly targets: FaultTargets;

  constructor(private readonly cluster: Cluster) {
    this.targets = {
      transactionStatePartitions: cluster.transactionStatePartitions,
      partitions: cluster.partitions,
      emit: (node, kind, fields) => cluster.sim.emit(node, kind, fields),
      moveLeader: (partition) => cluster.controller.moveLeader(partition),
      startTransactionLogOutage: (index, untilMs) => cluster.startTransactionLogOutage(index, untilMs),
      deleteRecords: (partition) => deleteRecordsUpToHighWatermark(cluster, partition),
      stoppableBrokers: () => this.stoppableBrokers(),
      stopBroker: (how, broker, downtimeMs) => this.stopBroker(how, broker, downtimeMs),
      pauseProducer: (index, untilMs) => cluster.producers[index]?.pause(untilMs),
      canRestartProducer: () => this.restarts < MAX_RESTARTS,
      restartProducer: (index, zombieUntilMs) => this.restart(index, zombieUntilMs),
    };
  }

  start(): void {
    const { faults, broker } = this.cluster.spec;
    for (const upgrade of faults.upgrades)
      this.cluster.sim.scheduleAt(upgrade.atMs, () =>
        this.upgrade(upgrade.node, upgrade.release, upgrade.downtimeMs, () => {}),
      );
    for (const update of faults.featureUpdates)
      this.cluster.sim.scheduleAt(update.atMs, () => this.updateFeatures(update.transactionVersion));
    const rolling = faults.rollingUpgrade;
    if (rolling) this.cluster.sim.scheduleAt(rolling.startMs, () => this.rollingUpgrade(rolling.order, 0));
    if (broker.leaderImbalanceCheckIntervalMs > 0)
      this.schedulePreferredElection(broker.leaderImbalanceCheckIntervalMs);
    if (faults.nemesisTickMs <= 0) return;
    this.active = true;
    this.cluster.sim.schedule(faults.nemesisTickMs, () => this.tick());
  }

  /** End of the fault window: no new faults; brokers still down restart now, zombies stop. */
  stop(): void {
    this.active = false;
    for (const z of this.zombies) z.stop();
    for (const restart of [...this.down.values()]) restart();
  }

  private tick(): void {
    if (!this.active) return;
    const { sim, choices, net, spec } = this.cluster;
    const f = spec.faults;
    const now = sim.nowMs;
    // The registered faults first, in their order (src/kafka/faults/registry.ts), then the others.
    const draw = { choices, net, nowMs: now, brokers: [...this.cluster.brokers.keys()], cluster: this.targets };
    for (const fault of NODE_FAULT_LIST) fault.draw(draw, f[fault.field]);
    this.cluster.producers.forEach((producer, i) => {
      if (producer.isDone) return;
      for (const fault of NODE_FAULT_LIST) fault.drawForProducer?.(draw, f[fault.field], i);
    });
    this.cluster.processors?.tick();
    sim.schedule(f.nemesisTickMs, () => this.tick());
  }

  /** The brokers a stop may take (FaultTargets.stoppableBrokers). */
  private stoppableBrokers(): readonly string[] {
    if (this.down.size >= this.cluster.spec.faults.maxBrokersDown || this.brokerStops >= MAX_BROKER_STOPS) return [];
    return [...this.cluster.brokers.values()].filter((b) => b.isRunning && !this.down.has(b.id)).map((b) => b.id);
  }

  /** A controlled shutdown or a crash of `broker` (drawn by src/kafka/faults/broker-stop.ts), and its restart after `downtime`. */
  private stopBroker(how: "controlled" | "crash", broker: string, downtime: number): void {
    const { sim } = this.cluster;
    this.brokerStops++;
    sim.emit("nemesis", how === "controlled" ? "fault.controlled-shutdown" : "fault.crash", {
      broker,
      downtimeMs: downtime,
    });
    let restarted = false;
    const restart = () => {
      if (restarted) return;
      restarted = true;
      this.down.delete(broker);
      this.cluster.restart(broker);
    };
    this.down.set(broker, restart);
    const scheduleRestart = () => sim.schedule(downtime, restart);
    if (how === "controlled") this.cluster.controlledShutdown(broker, scheduleRestart);
    else {
      this.cluster.crash(broker);
      scheduleRestart();
    }
  }

  /**
   * The application restarts producer i (drawn by src/kafka/faults/producer-restart.ts): the old
   * instance is not dead but paused until `zombieUntilMs` (a zombie that resumes later); a new
   * instance with the same transactional.id starts and fences it.
   */
  private restart(index: number, zombieUntilMs: number): void {
    const { sim } = this.cluster;
    const old = this.cluster.producers[index] as TransactionalProducer;
    old.superseded = true;
    old.pause(zombieUntilMs);
    this.zombies.push(old);
    this.restarts++;
    const base = old.config.name.split("#")[0] as string;
    const fresh = this.cluster.newProducer(`${base}#${this.restarts + 1}`, old.config.transactionalId);
    fresh.inheritProgress(old);
    this.cluster.producers[index] = fresh;
    sim.emit("nemesis", "fault.producer-restart", { old: old.config.name, fresh: fresh.config.name });
    fresh.start(0);
  }

  /** Upgrade one broker as an operator does: controlled shutdown, restart on `release` after `downtimeMs`. */
  upgrade(node: string, release: ReleaseName, downtimeMs: number, then: () => void): void {
    const { sim } = this.cluster;
    sim.emit("nemesis", "fault.upgrade", { broker: node, release });
    this.cluster.controlledShutdown(node, () =>
      sim.schedule(downtimeMs, () => {
        this.cluster.restart(node, release);
        then();
      }),
    );
  }

  /** An operator's `kafka-features.sh` run: the controller finalizes transaction.version `level`, or refuses. */
  private updateFeatures(level: TransactionVersion): void {
    this.cluster.sim.emit("nemesis", "fault.feature-update", { level });
    this.cluster.updateTransactionVersion(level);
  }

  /** Brokers one by one: each upgraded, and back in every ISR it belongs to before the next goes down. */
  private rollingUpgrade(order: readonly string[], index: number): void {
    const rolling = this.cluster.spec.faults.rollingUpgrade;
    const node = order[index];
    if (!rolling || node === undefined) return;
    this.upgrade(node, rolling.release, rolling.downtimeMs, () =>
      this.whenCaughtUp(node, () => this.rollingUpgrade(order, index + 1)),
    );
  }

  private whenCaughtUp(node: string, then: () => void): void {
    const image = this.cluster.controller.image;
    for (const reg of image.partitions.values()) {
      if (reg.replicas.includes(node) && !reg.isr.includes(node)) {
        this.cluster.sim.schedule(CATCH_UP_POLL_MS, () => this.whenCaughtUp(node, then));
        return;
      }
    }
    this.cluster.sim.emit("nemesis", "fault.caught-up", { broker: node });
    then();
  }

  /** auto.leader.rebalance: the controller's periodic preferred-leader election. */
  private schedulePreferredElection(intervalMs: number): void {
    this.cluster.sim.schedule(intervalMs, () => {
      this.cluster.controller.electPreferredLeaders();
      this.schedulePreferredElection(intervalMs);
    });
  }
}
