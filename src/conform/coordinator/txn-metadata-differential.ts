import type { ReleaseFlags } from "../../kafka/release.js";
import type { KafkaHarness } from "../../harness/harness-process.js";
import { ModelTxnMetadata } from "./model-txn-metadata.js";
import { firstStepDivergence, type SequenceComparison, type SequenceSurface } from "./sequence-campaign.js";
import {
  type AbstractTxnMetadataSequence,
  concretizeTxnMetadataOp,
  type TxnMetadataCaps,
  txnMetadataSequenceArbitrary,
} from "./txn-metadata-arbitrary.js";
import type { TxnMetadataInit, TxnMetadataOp, TxnMetadataResult } from "./txn-metadata-ops.js";

export interface TxnMetadataComparison extends SequenceComparison<TxnMetadataOp, TxnMetadataResult> {
  init: TxnMetadataInit;
}

/** What a release's TransactionMetadata can be asked: transaction versions from 4.0 (the profile's TV2 support). */
export function txnMetadataCaps(flags: Readonly<ReleaseFlags>): TxnMetadataCaps {
  return { transactionVersions: flags.supportsTransactionVersion2 };
}

/** The model's side of one sequence: concrete ops (fixed against its own metadata) and its answers. */
export function runModelTxnMetadata(
  flags: Readonly<ReleaseFlags>,
  abstract: AbstractTxnMetadataSequence,
): { ops: TxnMetadataOp[]; results: TxnMetadataResult[] } {
  const model = new ModelTxnMetadata(flags, abstract.init);
  const ops: TxnMetadataOp[] = [];
  const results: TxnMetadataResult[] = [];
  abstract.ops.forEach((a, step) => {
    const op = concretizeTxnMetadataOp(a, model, step);
    ops.push(op);
    results.push(model.apply(op));
  });
  return { ops, results };
}

export async function runKafkaTxnMetadata(
  harness: KafkaHarness,
  init: TxnMetadataInit,
  ops: readonly TxnMetadataOp[],
): Promise<TxnMetadataResult[]> {
  const reply = await harness.request({ service: "txnMetadata", init, ops });
  const results = reply.results;
  if (!Array.isArray(results) || results.length !== ops.length)
    throw new Error(
      `the txnMetadata service answered ${Array.isArray(results) ? results.length : "no"} results for ${ops.length} ops`,
    );
  return results as TxnMetadataResult[];
}

export async function compareTxnMetadataSequence(
  harness: KafkaHarness,
  flags: Readonly<ReleaseFlags>,
  abstract: AbstractTxnMetadataSequence,
): Promise<TxnMetadataComparison> {
  const { ops, results: model } = runModelTxnMetadata(flags, abstract);
  const kafka = await runKafkaTxnMetadata(harness, abstract.init, ops);
  return { init: abstract.init, ops, model, kafka, divergence: firstStepDivergence(ops, model, kafka) };
}

export function txnMetadataSurface(
  harness: KafkaHarness,
  flags: Readonly<ReleaseFlags>,
): SequenceSurface<AbstractTxnMetadataSequence, TxnMetadataOp, TxnMetadataComparison> {
  const caps = txnMetadataCaps(flags);
  return {
    arbitrary: (maxLength) => txnMetadataSequenceArbitrary(caps, maxLength),
    compare: (abstract) => compareTxnMetadataSequence(harness, flags, abstract),
    length: (abstract) => abstract.ops.length,
  };
}
