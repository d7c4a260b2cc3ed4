import type { PartitionLog } from "./broker/partition-log.js";
import type { ProducerSpec } from "./cluster-spec.js";
import { NO_PRODUCER_ID, type PartitionKey } from "./common/types.js";
import type { ProducerIdManager } from "./coordinator/producer-id-manager.js";
import type { TxnTransitMetadata } from "./coordinator/transaction-metadata.js";
import { transactionStatePartitionFor, transactionStatePartitionKey } from "./coordinator/transaction-partitioning.js";

/**
 * Scenarios that start near epoch exhaustion (`initialProducerEpoch`) pre-write an Empty record per
 * transactional.id into its __transaction_state partition, on every replica, committed (below the
 * high watermark), as if each id had lived that long already.
 */
export function seedInitialEpochs(parts: {
  producers: ProducerSpec;
  producerIds: ProducerIdManager;
  transactionStatePartitionCount: number;
  /** Every replica's log of `partition`, the leader's first. */
  replicaLogs: (partition: PartitionKey) => PartitionLog[];
}): void {
  const { producers, producerIds } = parts;
  const epoch = producers.initialProducerEpoch;
  if (epoch === null) return;
  for (let i = 0; i < producers.count; i++) {
    const transactionalId = `txn-${i}`;
    const value: TxnTransitMetadata = {
      producerId: producerIds.generateProducerId(),
      prevProducerId: NO_PRODUCER_ID,
      nextProducerId: NO_PRODUCER_ID,
      producerEpoch: epoch,
      lastProducerEpoch: -1,
      txnTimeoutMs: producers.transactionTimeoutMs,
      txnState: "Empty",
      topicPartitions: [],
      txnStartTimestamp: -1,
      txnLastUpdateTimestamp: 0,
      clientTransactionVersion: producers.transactionVersion >= 2 ? 2 : 0,
      ghostTxn: null,
    };
    const key = transactionStatePartitionKey(
      transactionStatePartitionFor(transactionalId, parts.transactionStatePartitionCount),
    );
    const [first, ...rest] = parts.replicaLogs(key);
    const batch = (first as PartitionLog).appendTxnRecord({ transactionalId, value });
    for (const log of rest) log.appendAsFollower(batch);
    for (const log of [first, ...rest] as PartitionLog[]) log.updateFollowerHighWatermark(log.logEndOffset);
  }
}
