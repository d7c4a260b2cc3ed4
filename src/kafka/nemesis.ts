import type { TransactionalProducer } from "./client/transactional-producer.js";
import type { Cluster } from "./cluster.js";
import type { TransactionCoordinator } from "./coordinator/transaction-coordinator.js";

/** Bound on producer restarts per run (each creates a new instance). */
const MAX_RESTARTS = 64;

/**
 * Node-level faults, drawn every tick while faults are on: broker stalls (GC pauses), link
 * partitions between the coordinator and brokers, coordinator failovers, producer pauses (zombies)
 * and restarts. Scheduled upgrades happen at their time regardless of the fault window.
 */
export class Nemesis {
  private active = false;
  private restarts = 0;
  readonly zombies: TransactionalProducer[] = [];

  constructor(private readonly cluster: Cluster) {}

  start(): void {
    const { faults } = this.cluster.spec;
    for (const upgrade of faults.upgrades)
      this.cluster.sim.scheduleAt(upgrade.atMs, () => this.upgrade(upgrade.node, upgrade.release));
    if (faults.nemesisTickMs <= 0) return;
    this.active = true;
    this.cluster.sim.schedule(faults.nemesisTickMs, () => this.tick());
  }

  stop(): void {
    this.active = false;
    for (const z of this.zombies) z.stop();
  }

  private tick(): void {
    if (!this.active) return;
    const { sim, choices, net, spec } = this.cluster;
    const f = spec.faults;
    const now = sim.nowMs;
    for (const broker of this.cluster.brokers.keys()) {
      if (choices.chance("nemesis:stall", f.brokerStall.ppm)) {
        net.stall(
          broker,
          now + choices.between("nemesis:stall", f.brokerStall.durationMs.min, f.brokerStall.durationMs.max),
        );
      }
    }
    if (choices.chance("nemesis:partition", f.linkPartition.ppm)) this.partitionLink();
    if (choices.chance("nemesis:failover", f.coordinatorFailover.ppm)) this.failover();
    this.cluster.producers.forEach((producer, i) => {
      if (producer.isDone) return;
      if (choices.chance("nemesis:pause", f.producerPause.ppm)) {
        producer.pause(
          now + choices.between("nemesis:pause", f.producerPause.durationMs.min, f.producerPause.durationMs.max),
        );
      }
      if (this.restarts < MAX_RESTARTS && choices.chance("nemesis:restart", f.producerRestart.ppm)) this.restart(i);
    });
    sim.schedule(f.nemesisTickMs, () => this.tick());
  }

  /** Cut the link between the coordinator and one broker (both ways, or one way). */
  private partitionLink(): void {
    const { sim, choices, net, spec } = this.cluster;
    const brokers = [...this.cluster.brokers.keys()];
    const broker = brokers[choices.pick("nemesis:partition", brokers.length)] as string;
    const coordinator = this.cluster.log.leader;
    const until =
      sim.nowMs +
      choices.between(
        "nemesis:partition",
        spec.faults.linkPartition.durationMs.min,
        spec.faults.linkPartition.durationMs.max,
      );
    const oneWay = choices.chance("nemesis:partition", spec.faults.linkPartition.oneWayPpm);
    net.block(coordinator, broker, until);
    if (!oneWay) net.block(broker, coordinator, until);
  }

  /** Move __transaction_state leadership: new coordinator epoch; the old one resigns a bit later. */
  failover(): void {
    const { sim, choices, spec, log } = this.cluster;
    const ids = [...this.cluster.coordinators.keys()];
    const oldId = log.leader;
    const oldEpoch = log.epoch;
    const newId = ids.length > 1 ? (ids[(ids.indexOf(oldId) + 1) % ids.length] as string) : oldId;
    const oldCoordinator = this.cluster.coordinators.get(oldId) as TransactionCoordinator;
    const newCoordinator = this.cluster.coordinators.get(newId) as TransactionCoordinator;
    const newEpoch = log.elect(newId);
    sim.emit("nemesis", "fault.failover", { from: oldId, to: newId, ce: newEpoch });
    if (newId === oldId) {
      oldCoordinator.onResignation(oldEpoch);
    } else {
      const { min, max } = spec.faults.coordinatorFailover.resignDelayMs;
      sim.schedule(choices.between("nemesis:failover", min, max), () => oldCoordinator.onResignation(oldEpoch));
    }
    newCoordinator.onElection(newEpoch);
  }

  /**
   * The application restarts producer i: the old instance is not dead but paused (a zombie that
   * resumes later); a new instance with the same transactional.id starts and fences it.
   */
  private restart(index: number): void {
    const { sim, choices, spec } = this.cluster;
    const old = this.cluster.producers[index] as TransactionalProducer;
    old.superseded = true;
    old.pause(
      sim.nowMs +
        choices.between(
          "nemesis:restart",
          spec.faults.producerRestart.zombiePauseMs.min,
          spec.faults.producerRestart.zombiePauseMs.max,
        ),
    );
    this.zombies.push(old);
    this.restarts++;
    const base = old.config.name.split("#")[0] as string;
    const fresh = this.cluster.newProducer(`${base}#${this.restarts + 1}`, old.config.transactionalId);
    fresh.inheritProgress(old);
    this.cluster.producers[index] = fresh;
    sim.emit("nemesis", "fault.producer-restart", { old: old.config.name, fresh: fresh.config.name });
    fresh.start(0);
  }

  upgrade(node: string, release: Parameters<Cluster["profileOf"]>[1]): void {
    const broker = this.cluster.brokers.get(node);
    const spec = [...this.cluster.spec.brokers, ...this.cluster.spec.coordinators].find((n) => n.id === node);
    if (!spec || !release) throw new Error(`upgrade of unknown node ${node}`);
    const profile = this.cluster.profileOf(spec, release);
    if (broker) {
      broker.upgrade(profile);
      this.cluster.net.resetConnectionsTo(node, `upgraded to ${release}`);
    }
    this.cluster.coordinators.get(node)?.upgrade(profile);
  }
}
