import { ConnectionPool } from "../../sim/network.js";
import { Errors } from "../common/errors.js";
import type { ClusterContext } from "../cluster-context.js";
import type { AddPartitionsToTxnRequest, KafkaRequest, KafkaResponse } from "../protocol.js";

/** Timeout of the broker's verification requests to the coordinator (request.timeout.ms). */
const VERIFICATION_TIMEOUT_MS_DEFAULT = 30_000;

/**
 * AddPartitionsToTxnManager: a leader asks the transaction coordinator whether a partition is part
 * of the producer's transaction (verifyOnly, KIP-890 part 1) or to add it (TV2 implicit add).
 * The coordinator is found in the broker's own metadata image (it may be behind the controller).
 * Simplification: one request per verification (Kafka batches per coordinator node).
 */
export class AddPartitionsToTxnManager {
  private readonly connections: ConnectionPool<KafkaRequest, KafkaResponse>;

  constructor(
    private readonly ctx: ClusterContext,
    self: string,
    /** The coordinator of a transactional.id as this broker's metadata image shows it (null: none now). */
    private readonly coordinatorFor: (transactionalId: string) => string | null,
    private readonly stopped: () => boolean,
    private readonly timeoutMs: number = VERIFICATION_TIMEOUT_MS_DEFAULT,
  ) {
    this.connections = new ConnectionPool(ctx.net, self);
  }

  /** Calls back with the coordinator's per-partition error for `request.partitions[0]`. */
  verify(request: AddPartitionsToTxnRequest, onResult: (errorCode: number) => void): void {
    const coordinator = this.coordinatorFor(request.transactionalId);
    if (coordinator === null) return onResult(Errors.COORDINATOR_NOT_AVAILABLE);
    const conn = this.connections.to(coordinator);
    this.ctx.net.request(conn, request, this.timeoutMs, (result) => {
      if (this.stopped()) return;
      if (result.kind === "disconnected") return onResult(Errors.NETWORK_EXCEPTION);
      const response = result.body as KafkaResponse;
      if (response.api !== "AddPartitionsToTxn") throw new Error(`verification got ${response.api}`);
      if (response.errorCode !== Errors.NONE) return onResult(response.errorCode);
      const mine = response.results.find((r) => r.partition === request.partitions[0]);
      onResult(mine ? mine.errorCode : Errors.UNKNOWN_TOPIC_OR_PARTITION);
    });
  }
}

/** How a leader maps the coordinator's verification answer into a produce error (KafkaApis / ReplicaManager). */
export function produceErrorForVerification(errorCode: number, produceVersion: number): number {
  switch (errorCode) {
    case Errors.NONE:
      return Errors.NONE;
    case Errors.PRODUCER_FENCED:
      return Errors.INVALID_PRODUCER_EPOCH;
    case Errors.TRANSACTION_ABORTABLE:
      return produceVersion >= 11 ? Errors.TRANSACTION_ABORTABLE : Errors.INVALID_TXN_STATE;
    case Errors.CONCURRENT_TRANSACTIONS:
    case Errors.NETWORK_EXCEPTION:
    case Errors.COORDINATOR_LOAD_IN_PROGRESS:
    case Errors.COORDINATOR_NOT_AVAILABLE:
    case Errors.NOT_COORDINATOR:
      return Errors.NOT_ENOUGH_REPLICAS;
    default:
      return errorCode;
  }
}
