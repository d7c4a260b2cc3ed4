import { ScriptedProducer } from "../../kafka/client/scripted-producer.js";
import type { Cluster } from "../../kafka/cluster.js";
import type { KafkaRequest, KafkaResponse } from "../../kafka/protocol.js";
import type { GhostLedger } from "../../oracle/ghost-ledger.js";
import { ConnectionPool } from "../../sim/network.js";
import { MessageHolds } from "./message-holds.js";
import { SCRIPT_NODE_NAMES } from "./node-names.js";
import { describeMarkerOutcomes } from "./observation.js";
import type { Script } from "./script-schema.js";

/** Ghost marker ids of harness-sent markers start here (the coordinators count from 1). */
const HARNESS_MARKER_ID_BASE = 1_000_000_000;

/** What the steps of one script run share: the model, the script's producers, its holds, its own connections. */
export class StepContext {
  private readonly producers = new Map<string, ScriptedProducer>();
  readonly holds: MessageHolds;
  /** Connections of direct requests (`request` steps) and of reads (`read` steps). */
  readonly harness: ConnectionPool<KafkaRequest, KafkaResponse>;
  readonly reader: ConnectionPool<KafkaRequest, KafkaResponse>;
  private nextHarnessMarkerId = HARNESS_MARKER_ID_BASE;
  private nextHarnessCorrelationId = 1;

  constructor(
    readonly cluster: Cluster,
    readonly ledger: GhostLedger,
    readonly script: Script,
  ) {
    for (const p of script.producers) {
      this.producers.set(
        p.name,
        new ScriptedProducer(
          cluster.ctx,
          {
            name: p.name,
            transactionalId: p.transactionalId,
            transactionVersion: p.transactionVersion,
            transactionTimeoutMs: p.transactionTimeoutMs,
            requestTimeoutMs: p.requestTimeoutMs,
          },
          {
            coordinatorOf: (id) => cluster.coordinatorOf(id).broker,
            leaderOf: (partition) => cluster.leaderOf(partition),
          },
        ),
      );
    }
    this.holds = new MessageHolds((node) => this.resolve(node));
    this.harness = new ConnectionPool(cluster.net, SCRIPT_NODE_NAMES.harness);
    this.reader = new ConnectionPool(cluster.net, SCRIPT_NODE_NAMES.reader);
  }

  get sim() {
    return this.cluster.sim;
  }

  producer(name: string): ScriptedProducer {
    const p = this.producers.get(name);
    if (!p) throw new Error(`unknown script producer ${name}`);
    return p;
  }

  /** The transactional.id whose coordinator `coordinator` and `failover` mean: the first script producer's. */
  coordinatedId(): string {
    return this.script.producers[0]?.transactionalId ?? "";
  }

  /** A node a step names, as it is now: `coordinator` is the broker coordinating the first producer's transactional.id. */
  resolve(node: string): string {
    return node === SCRIPT_NODE_NAMES.coordinator
      ? (this.cluster.coordinatorOf(this.coordinatedId()).broker ?? node)
      : node;
  }

  /** The coordinator's state of a transactional.id, as its owner sees it now (a pending transition is shown, not compared). */
  coordinatorState(transactionalId: string): { state: string; shown: string } {
    const coordinator = this.cluster.servingCoordinatorFor(transactionalId);
    if (!coordinator) return { state: "unknown", shown: "unknown (the coordinator is loading)" };
    const m = coordinator.describe(transactionalId);
    if (!m) return { state: "absent", shown: "absent" };
    return { state: m.state, shown: m.pendingState ? `${m.state} (pending ${m.pendingState})` : m.state };
  }

  /** How the leaders judged the markers of one request (by correlation id) since `sinceMs`; "" when none were. */
  markerOutcomesOf(correlationId: number, sinceMs: number): string {
    const outcomes = [...this.ledger.markerOutcomes.values()]
      .flat()
      .filter((o) => o.correlationId === correlationId && o.atMs >= sinceMs);
    return outcomes.length > 0 ? describeMarkerOutcomes(outcomes) : "";
  }

  /** The next ghost marker id of a marker the harness sends. */
  harnessMarkerId(): number {
    return this.nextHarnessMarkerId++;
  }

  /** The next correlation id in the header of a request the harness encodes itself. */
  harnessCorrelationId(): number {
    return this.nextHarnessCorrelationId++;
  }
}
