import type { ReleaseProfile } from "../../kafka/release.js";
import type { KafkaHarness } from "../../harness/harness-process.js";
import { ModelTxnCoordinator } from "./model-txn-coordinator.js";
import { firstStepDivergence, type SequenceComparison, type SequenceSurface } from "./sequence-campaign.js";
import {
  type AbstractTxnCoordinatorSequence,
  concretizeTxnCoordinatorOp,
  txnCoordinatorConfig,
  txnCoordinatorSequenceArbitrary,
} from "./txn-coordinator-arbitrary.js";
import type { TxnCoordinatorOp, TxnCoordinatorResult, TxnCoordinatorSequence } from "./txn-coordinator-ops.js";

export interface TxnCoordinatorComparison extends SequenceComparison<TxnCoordinatorOp, TxnCoordinatorResult> {
  sequence: TxnCoordinatorSequence;
}

/** The model's side: a describe after every op is not added; the ops are fixed against the model's coordinator. */
export function runModelTxnCoordinator(
  profile: ReleaseProfile,
  abstract: AbstractTxnCoordinatorSequence,
): { sequence: TxnCoordinatorSequence; results: TxnCoordinatorResult[] } {
  const config = txnCoordinatorConfig(abstract.finalizedTransactionVersion);
  const model = new ModelTxnCoordinator(profile, config);
  // The starting transaction was written under the finalized level: its client version is no higher.
  const initial = abstract.initial && {
    ...abstract.initial,
    clientTransactionVersion: Math.min(abstract.initial.clientTransactionVersion, abstract.finalizedTransactionVersion),
  };
  if (initial) model.put(initial);
  const ops: TxnCoordinatorOp[] = [];
  const results: TxnCoordinatorResult[] = [];
  for (const a of abstract.ops) {
    const op = concretizeTxnCoordinatorOp(a, model, abstract.finalizedTransactionVersion);
    ops.push(op);
    results.push(model.apply(op));
  }
  return { sequence: { config, initialMetadata: initial, ops }, results };
}

export async function runKafkaTxnCoordinator(
  harness: KafkaHarness,
  sequence: TxnCoordinatorSequence,
): Promise<TxnCoordinatorResult[]> {
  const body: Record<string, unknown> = { service: "txnCoordinator", config: sequence.config, ops: sequence.ops };
  if (sequence.initialMetadata) body.initialMetadata = sequence.initialMetadata;
  const reply = await harness.request(body);
  const results = reply.results;
  if (!Array.isArray(results) || results.length !== sequence.ops.length)
    throw new Error(
      `the txnCoordinator service answered ${Array.isArray(results) ? results.length : "no"} results for ${sequence.ops.length} ops`,
    );
  return results as TxnCoordinatorResult[];
}

export async function compareTxnCoordinatorSequence(
  harness: KafkaHarness,
  profile: ReleaseProfile,
  abstract: AbstractTxnCoordinatorSequence,
): Promise<TxnCoordinatorComparison> {
  const { sequence, results: model } = runModelTxnCoordinator(profile, abstract);
  const kafka = await runKafkaTxnCoordinator(harness, sequence);
  return { sequence, ops: sequence.ops, model, kafka, divergence: firstStepDivergence(sequence.ops, model, kafka) };
}

export function txnCoordinatorSurface(
  harness: KafkaHarness,
  profile: ReleaseProfile,
): SequenceSurface<AbstractTxnCoordinatorSequence, TxnCoordinatorOp, TxnCoordinatorComparison> {
  return {
    arbitrary: (maxLength) => txnCoordinatorSequenceArbitrary(profile.flags, maxLength),
    compare: (abstract) => compareTxnCoordinatorSequence(harness, profile, abstract),
    length: (abstract) => abstract.ops.length,
  };
}
