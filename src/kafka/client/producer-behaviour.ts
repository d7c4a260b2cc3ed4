import type { ReleaseFlags } from "../release.js";
import type { ProducerBehaviour } from "./transaction-manager.js";

/**
 * The producer's switches of a client release's flags (overrides and mutants included): what a
 * KafkaProducer of that release does, read by its TransactionManager, Sender and application loop.
 */
export function producerBehaviour(flags: Readonly<ReleaseFlags>): ProducerBehaviour {
  return {
    invalidProducerEpochOnProduceAbortable: flags.produceInvalidEpochAbortable,
    adoptEndTxnEpoch: flags.adoptEndTxnEpoch,
    abortWithoutFlush: flags.appAbortsWithoutFlush,
    commitIgnoresSyncSendErrors: flags.commitIgnoresSyncSendErrors,
    tv2EndTxnForEmptyTxn: flags.tv2EndTxnForEmptyTxn,
    drainDropsTxnFlagInAbortableError: flags.drainDropsTxnFlagInAbortableError,
    outOfOrderSequenceFatal: flags.produceOutOfOrderSequenceFatal,
    invalidProducerIdMappingFatal: flags.invalidProducerIdMappingFatal,
    endTxnAbortAbortableErrorFatal: flags.endTxnAbortAbortableErrorFatal,
    txnOffsetCommitMemberEpochErrorsAbortable: flags.txnOffsetCommitMemberEpochErrorsAbortable,
  };
}
