import { Errors } from "../common/errors.js";
import type { ClusterContext } from "../cluster-context.js";
import type { TxnTransitMetadata } from "./transaction-metadata.js";

/**
 * The __transaction_state partition (modelled as one partition holding every transactional.id).
 * Its leader epoch is the coordinator epoch. Replication is abstracted into a drawn append delay; a
 * write counts only if the writer's epoch is still the leader epoch when it completes.
 */
export class TransactionLog {
  private leaderEpoch = 0;
  private leaderNode: string;
  /** Compacted view: last record per transactional.id (what a loading coordinator reads). */
  private readonly records = new Map<string, TxnTransitMetadata>();
  appendCount = 0;

  constructor(
    private readonly ctx: ClusterContext,
    initialLeader: string,
    initialEpoch: number,
  ) {
    this.leaderNode = initialLeader;
    this.leaderEpoch = initialEpoch;
  }

  get leader(): string {
    return this.leaderNode;
  }

  get epoch(): number {
    return this.leaderEpoch;
  }

  /** Leadership moves (failover): a new leader epoch, i.e. a new coordinator epoch. */
  elect(node: string): number {
    this.leaderNode = node;
    this.leaderEpoch += 1;
    return this.leaderEpoch;
  }

  /** Append with acks=-1; calls back with NONE or the error Kafka's TransactionStateManager maps it to. */
  append(
    writer: string,
    coordinatorEpoch: number,
    transactionalId: string,
    record: TxnTransitMetadata,
    onDone: (errorCode: number) => void,
  ): void {
    const { min, max } = this.ctx.config.txnLogAppendDelayMs;
    const delayMs = this.ctx.choices.between("txnlog", min, max);
    const transientFailure =
      this.ctx.net.faultsActive && this.ctx.choices.chance("txnlog", this.ctx.config.txnLogAppendFailurePpm);
    this.ctx.sim.schedule(delayMs, () => {
      if (coordinatorEpoch !== this.leaderEpoch || writer !== this.leaderNode) {
        // NOT_LEADER_OR_FOLLOWER from the replica manager becomes NOT_COORDINATOR.
        this.ctx.sim.emit(writer, "txnlog.append-failed", {
          txnId: transactionalId,
          state: record.txnState,
          error: Errors.NOT_COORDINATOR,
        });
        return onDone(Errors.NOT_COORDINATOR);
      }
      if (transientFailure) {
        // NOT_ENOUGH_REPLICAS / REQUEST_TIMED_OUT become COORDINATOR_NOT_AVAILABLE.
        this.ctx.sim.emit(writer, "txnlog.append-failed", {
          txnId: transactionalId,
          state: record.txnState,
          error: Errors.COORDINATOR_NOT_AVAILABLE,
        });
        return onDone(Errors.COORDINATOR_NOT_AVAILABLE);
      }
      this.records.set(transactionalId, record);
      this.appendCount++;
      this.ctx.sim.emit(writer, "txnlog.append", {
        txnId: transactionalId,
        state: record.txnState,
        pid: record.producerId,
        epoch: record.producerEpoch,
        ce: coordinatorEpoch,
      });
      onDone(Errors.NONE);
    });
  }

  /** Pre-existing state written before the run (scenarios that start near epoch exhaustion). */
  seed(transactionalId: string, record: TxnTransitMetadata): void {
    this.records.set(transactionalId, record);
  }

  /** What a newly elected coordinator loads (insertion order: deterministic). */
  load(): [string, TxnTransitMetadata][] {
    return [...this.records.entries()];
  }
}
