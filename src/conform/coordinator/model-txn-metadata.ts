import { Errors, errorName, IllegalStateException } from "../../kafka/common/errors.js";
import type { TransactionVersion } from "../../kafka/common/types.js";
import {
  KafkaThrownException,
  ProducerFencedError,
  TransactionMetadata,
  txnMetadataRules,
  type TxnTransitMetadata,
} from "../../kafka/coordinator/transaction-metadata.js";
import type { ReleaseFlags } from "../../kafka/release.js";
import { kafkaState, modelState, sortedPartitions } from "./txn-names.js";
import type {
  MetadataView,
  TransitView,
  TxnMetadataInit,
  TxnMetadataOp,
  TxnMetadataResult,
} from "./txn-metadata-ops.js";

/**
 * The model's TransactionMetadata driven by the txnMetadata surface's ops, with its release's rules
 * (txnMetadataRules). One op is a translation: prepareAbortOrCommit bumps the epoch when the op's
 * client version is TV2 (Kafka's metadata decides that from supportsEpochBump; the model's
 * coordinator passes it as a flag, which its mutant no-epoch-bump-at-endtxn turns off).
 */
export class ModelTxnMetadata {
  readonly metadata: TransactionMetadata;
  private last: TxnTransitMetadata | null = null;

  constructor(
    private readonly flags: Readonly<ReleaseFlags>,
    init: TxnMetadataInit,
  ) {
    const m = new TransactionMetadata(
      init.transactionalId,
      init.producerId,
      init.producerEpoch,
      init.txnTimeoutMs,
      init.txnLastUpdateTimestamp,
    );
    m.prevProducerId = init.prevProducerId;
    m.nextProducerId = init.nextProducerId;
    m.lastProducerEpoch = init.lastProducerEpoch;
    m.state = modelState(init.state);
    m.topicPartitions = new Set(init.topicPartitions);
    m.txnStartTimestamp = init.txnStartTimestamp;
    m.clientTransactionVersion = init.clientTransactionVersion as TransactionVersion;
    m.rules = txnMetadataRules(flags);
    this.metadata = m;
  }

  apply(op: TxnMetadataOp): TxnMetadataResult {
    let error = "NONE";
    let exception: string | null = null;
    let message: string | null = null;
    let transit: TransitView | null = null;
    let completed: boolean | undefined;
    try {
      const r = this.step(op);
      transit = r.transit;
      completed = r.completed;
    } catch (e) {
      if (e instanceof ProducerFencedError) {
        error = errorName(Errors.PRODUCER_FENCED);
        exception = "ProducerFencedException";
      } else if (e instanceof IllegalStateException || e instanceof KafkaThrownException) {
        error = errorName(Errors.UNKNOWN_SERVER_ERROR);
        exception = e instanceof KafkaThrownException ? e.kafkaClass : "IllegalStateException";
      } else throw e;
      message = (e as Error).message;
    }
    const result: TxnMetadataResult = { error, exception, message, transit, metadata: this.view() };
    if (completed !== undefined) result.completed = completed;
    // Kafka's reply puts `completed` before `transit`; the comparison is by key, so order does not matter.
    return result;
  }

  private step(op: TxnMetadataOp): { transit: TransitView | null; completed?: boolean } {
    const m = this.metadata;
    switch (op.op) {
      case "prepareIncrementProducerEpoch":
        return this.keep(
          m.prepareIncrementProducerEpoch(op.newTxnTimeoutMs, op.expectedProducerEpoch, op.updateTimestamp),
        );
      case "prepareProducerIdRotation":
        return this.keep(
          m.prepareProducerIdRotation(op.producerId, op.newTxnTimeoutMs, op.updateTimestamp, op.recordLastEpoch),
        );
      case "prepareAddPartitions":
        return this.keep(
          m.prepareAddPartitions(
            op.partitions,
            op.updateTimestamp,
            op.clientTransactionVersion as TransactionVersion,
            null,
          ),
        );
      case "prepareAbortOrCommit":
        return this.keep(
          m.prepareAbortOrCommit(modelState(op.newState) as "PrepareCommit" | "PrepareAbort", {
            clientTransactionVersion: op.clientTransactionVersion as TransactionVersion,
            bumpEpoch: op.clientTransactionVersion >= 2,
            nextProducerId: op.nextProducerId,
            updateTimestamp: op.updateTimestamp,
            noPartitionAdded: op.noPartitionAdded,
          }),
        );
      case "prepareFenceProducerEpoch":
        return this.keep(
          m.prepareFenceProducerEpoch({ ignoreFailedFence: this.flags.tcFenceBumpsEpochOnEveryFailedWrite }),
        );
      case "prepareComplete":
        return this.keep(m.prepareComplete(op.updateTimestamp));
      case "prepareDead":
        return this.keep(m.prepareDead());
      case "completeTransitionTo": {
        if (this.last === null) return { transit: null, completed: false };
        m.completeTransitionTo(this.last);
        return { transit: null, completed: true };
      }
      case "clearPendingState":
        m.abortPendingTransition();
        return { transit: null };
    }
  }

  private keep(t: TxnTransitMetadata): { transit: TransitView } {
    this.last = t;
    return { transit: transitOf(t) };
  }

  view(): MetadataView {
    return metadataView(this.metadata);
  }
}

/** The protocol's view of a model TransactionMetadata. */
export function metadataView(m: TransactionMetadata): MetadataView {
  return {
    transactionalId: m.transactionalId,
    producerId: m.producerId,
    prevProducerId: m.prevProducerId,
    nextProducerId: m.nextProducerId,
    producerEpoch: m.producerEpoch,
    lastProducerEpoch: m.lastProducerEpoch,
    txnTimeoutMs: m.txnTimeoutMs,
    topicPartitions: sortedPartitions(m.topicPartitions),
    txnStartTimestamp: m.txnStartTimestamp,
    txnLastUpdateTimestamp: m.txnLastUpdateTimestamp,
    clientTransactionVersion: m.clientTransactionVersion,
    state: kafkaState(m.state),
    pendingState: m.pendingState === null ? null : kafkaState(m.pendingState),
    hasFailedEpochFence: m.hasFailedEpochFence,
  };
}

function transitOf(t: TxnTransitMetadata): TransitView {
  return {
    producerId: t.producerId,
    prevProducerId: t.prevProducerId,
    nextProducerId: t.nextProducerId,
    producerEpoch: t.producerEpoch,
    lastProducerEpoch: t.lastProducerEpoch,
    txnTimeoutMs: t.txnTimeoutMs,
    topicPartitions: sortedPartitions(t.topicPartitions),
    txnStartTimestamp: t.txnStartTimestamp,
    txnLastUpdateTimestamp: t.txnLastUpdateTimestamp,
    clientTransactionVersion: t.clientTransactionVersion,
    txnState: kafkaState(t.txnState),
  };
}
