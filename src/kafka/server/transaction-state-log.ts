import type { LogBatch } from "../broker/log-batch.js";
import type { ReplicaManager } from "../broker/replica-manager.js";
import { Errors } from "../common/errors.js";
import type { TxnTransitMetadata } from "../coordinator/transaction-metadata.js";
import { transactionStatePartitionKey } from "../coordinator/transaction-partitioning.js";
import type { TransactionLogAccess } from "../coordinator/transaction-state-manager.js";
import type { BrokerBase } from "./broker-process.js";

/**
 * The transaction coordinator's access to this broker's __transaction_state replicas: its durable
 * write is an acks=all append to a partition this broker leads (TransactionStateManager's
 * appendTransactionToLog through ReplicaManager.appendRecords); a load reads the local log.
 */
export function transactionStateLog(broker: BrokerBase, replicas: ReplicaManager): TransactionLogAccess {
  return {
    append: (partition, transactionalId, record, timeoutMs, onDone) =>
      appendTxnRecord(broker, replicas, { index: partition, transactionalId, record, timeoutMs }, onDone),
    read: (partition) => broker.logs.get(transactionStatePartitionKey(partition))?.batches ?? [],
  };
}

/** One durable write of the coordinator. */
interface TxnRecordAppend {
  readonly index: number;
  readonly transactionalId: string;
  readonly record: TxnTransitMetadata;
  readonly timeoutMs: number;
}

/** The coordinator's durable write: an acks=all append to the partition this broker leads. */
function appendTxnRecord(
  broker: BrokerBase,
  replicas: ReplicaManager,
  append: TxnRecordAppend,
  onDone: (errorCode: number) => void,
): void {
  const { index, transactionalId, record, timeoutMs } = append;
  const key = transactionStatePartitionKey(index);
  const finish = (errorCode: number, batch: LogBatch | null) => {
    if (errorCode === Errors.NONE) broker.shared.countTxnLogAppend();
    broker.ctx.sim.emit(broker.brokerId, errorCode === Errors.NONE ? "txnlog.append" : "txnlog.append-failed", {
      txnId: transactionalId,
      state: record.txnState,
      partition: index,
      offset: batch?.baseOffset ?? -1,
      error: errorCode,
    });
    onDone(errorCode);
  };
  // A nemesis outage is an ISR below min.insync.replicas: ReplicaManager checks leadership first,
  // then refuses with NOT_ENOUGH_REPLICAS before writing.
  if (replicas.leaderPartition(key) !== null && broker.shared.txnLogOutage(index))
    return finish(Errors.NOT_ENOUGH_REPLICAS, null);
  replicas.appendToLeader(
    key,
    timeoutMs,
    (log) => {
      const batch = log.appendTxnRecord({ transactionalId, value: record });
      return { waitForOffset: batch.lastOffset + 1, value: batch };
    },
    finish,
  );
}
