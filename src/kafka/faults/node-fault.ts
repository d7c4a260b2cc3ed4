import type { z } from "zod";
import type { ChoiceSource } from "../../sim/choice-tape.js";
import type { Network } from "../../sim/network.js";
import type { TraceEvent } from "../../sim/trace.js";
import type { Simulation } from "../../sim/simulation.js";
import type { PartitionKey } from "../common/types.js";
import type { KafkaRequest, KafkaResponse } from "../protocol.js";
import type { ClusterEvents, EventKind } from "../trace-events.js";

/*
 * A fault of the nemesis, whole in one file (as FoundationDB's workloads are): its settings in a
 * scenario, their form in the cluster spec, its draw at every nemesis tick, the trace event it
 * leaves, its line in a violation's story, its band on the space-time diagram, and (through the
 * trace event) what shrinking counts as a fault. The registry (registry.ts) lists the faults in the
 * order of their draws; the scenario schema, the cluster spec, the nemesis, the swarm, the story,
 * the diagram and the shrinker read it.
 */

/** What a fault's draw may use at a nemesis tick. */
export interface FaultDrawContext {
  readonly choices: ChoiceSource;
  readonly net: Network<KafkaRequest, KafkaResponse>;
  readonly nowMs: number;
  /** The cluster's brokers, in the cluster's order. */
  readonly brokers: readonly string[];
  /** What a fault may do to the cluster besides the network. */
  readonly cluster: FaultTargets;
}

/** The cluster's partitions and the moves a fault may make on them. */
export interface FaultTargets {
  readonly transactionStatePartitions: readonly PartitionKey[];
  /** Data partitions. */
  readonly partitions: readonly PartitionKey[];
  /** Records a fault's trace event (from the node "nemesis"). */
  emit: Simulation<ClusterEvents>["emit"];
  /** The controller moves the partition's leadership to another in-sync replica, if there is one. */
  moveLeader(partition: PartitionKey): void;
  /** DeleteRecords of a data partition up to its high watermark: its log start offset moves. */
  deleteRecords(partition: PartitionKey): void;
  /** __transaction_state partition `index` refuses appends until `untilMs`. */
  startTransactionLogOutage(index: number, untilMs: number): void;
  /**
   * The brokers a stop may take: running and not down by the nemesis's hand, in the cluster's
   * order; none while maxBrokersDown are down or the run's bound on stops is reached.
   */
  stoppableBrokers(): readonly string[];
  /** Stop `broker` (controlled or a crash); the nemesis restarts it after `downtimeMs`. */
  stopBroker(how: "controlled" | "crash", broker: string, downtimeMs: number): void;
  /** Producer `index` (in the cluster's order) sends nothing until `untilMs`. */
  pauseProducer(index: number, untilMs: number): void;
  /** The run's bound on producer restarts allows one more. */
  canRestartProducer(): boolean;
  /** Producer `index` restarts: the old instance paused until `zombieUntilMs`, a new one fences it. */
  restartProducer(index: number, zombieUntilMs: number): void;
}

/** A fault period on the space-time diagram. */
export interface FaultBand {
  /**
   * One of the diagram's band styles (CSS class band-<kind>, src/report/html/style.ts, with its
   * legend in page.ts): a shaded box over the lanes. A new style needs its CSS and legend there.
   */
  readonly kind: "stall" | "partition" | "pause" | "restart";
  readonly lanes: readonly string[];
  /** When it ends (the diagram cuts it at the run's end). */
  readonly untilMs: number;
  readonly label: string;
}

export interface NodeFault<
  Field extends string,
  Settings extends { probability: number },
  Spec extends { ppm: number },
> {
  /** Its name in a scenario's `faults:` and in the cluster spec's faults. */
  readonly field: Field;
  /** In words, for the swarm's and the docs' lists. */
  readonly name: string;
  /** Its settings in a scenario, with their defaults (off: probability 0). */
  readonly schema: z.ZodType<Settings, unknown>;
  /** The settings as the model draws with them (probabilities in parts per million). */
  toSpec(settings: Settings): Spec;
  /**
   * One nemesis tick: draw whether (and where, how long) the fault strikes, and strike. A fault of
   * the producers draws nothing here but in `drawForProducer`.
   */
  draw(ctx: FaultDrawContext, spec: Spec): void;
  /**
   * A fault of the producers: one nemesis tick for producer `index` (in the cluster's order), which
   * is not done. Called for each producer in turn, after every fault's `draw`, so the faults of one
   * producer draw together (its pause, then its restart).
   */
  drawForProducer?(ctx: FaultDrawContext, spec: Spec, index: number): void;
  /** The trace event a strike leaves (shrinking counts these as the run's faults). */
  readonly traceEvent: EventKind;
  /** The swarm turns it on and off per run (absent: yes). */
  readonly swarm?: boolean;
  /** Its line in the story of a violation about `about.broker`, or null when it is not part of it (absent: none). */
  storyLine?(e: TraceEvent, about: { broker?: string | null }): string | null;
  /** Its band on the space-time diagram (`isLane`: the diagram has a lane of that node), or null (absent: none). */
  band?(e: TraceEvent, isLane: (node: string) => boolean): FaultBand | null;
}
