import type { ReleaseFlags } from "../../kafka/release.js";
import { VIOLATION_KINDS, type ViolationKind } from "../../oracle/violation.js";
import type { LoadedScenario } from "../../scenario/loader.js";
import type { Expectation } from "../../scenario/schema.js";
import type { RunResult } from "../run/run-seed.js";

/**
 * A deliberately broken variant of the model: behaviour flags overridden on every node. The oracle
 * proves itself by catching each one, in the named scenario, with one of the expected violation
 * kinds, within `budget` seeds (starting at seed 0).
 */
export interface Mutant {
  name: string;
  /** One line: what is broken, in Kafka's terms. */
  description: string;
  overrides: Partial<ReleaseFlags>;
  /** The built-in scenario in which it must be caught (clean, or free of the expected kinds, without it). */
  scenario: string;
  /** Any one of these kinds kills the mutant. */
  expectedKinds: ViolationKind[];
  /** Seeds (from 0) within which it must be caught. */
  budget: number;
}

/**
 * The catalog. A budget is the number of seeds after which a mutant killed in a fraction r of seeds
 * would escape with probability below 1e-4 (ln 1e-4 / ln(1 - r), rounded up): model changes that
 * shift the draws do not make the test flaky, while a mutant that stops being caught fails it.
 * The measured kill rates are in docs/mutants.md.
 */
export const MUTANTS: readonly Mutant[] = [
  {
    name: "tv2-marker-legacy-rule",
    description:
      "leader applies the legacy marker rule (marker epoch >= producer epoch) to TV2 markers even on v2 requests",
    overrides: { strictMarkerEpochForTv2: false },
    scenario: "kip-1228",
    expectedKinds: ["stale-marker"],
    budget: 60,
  },
  {
    name: "legacy-marker-strict-rule",
    description: "leader treats TV0/TV1 markers as strict (marker epoch > producer epoch): the threshold is off by one",
    overrides: { strictMarkerEpochForLegacy: true },
    scenario: "tv1-legacy",
    expectedKinds: ["hanging-transaction"],
    budget: 5,
  },
  {
    name: "no-coordinator-epoch-check",
    description: "leader skips the coordinator-epoch check, so an old coordinator's late marker is not fenced",
    overrides: { coordinatorEpochCheck: false },
    scenario: "tv1-coordinator-failover",
    expectedKinds: ["stale-marker"],
    budget: 150,
  },
  {
    name: "no-marker-epoch-check",
    description: "leader accepts a marker without any producer-epoch check",
    overrides: { markerProducerEpochCheck: false },
    scenario: "kip-1228",
    expectedKinds: ["stale-marker"],
    budget: 35,
  },
  {
    name: "no-epoch-bump-at-endtxn",
    description:
      "coordinator does not bump the producer epoch at EndTxn under TV2, so KIP-1228 leaders refuse every marker",
    overrides: { epochBumpOnEndTxn: false },
    scenario: "kip-1228",
    expectedKinds: ["hanging-transaction"],
    budget: 5,
  },
  {
    name: "complete-after-first-ack",
    description:
      "coordinator writes CompleteCommit/CompleteAbort after the first partition acknowledged its marker, not all",
    overrides: { completeAfterAllMarkersAcked: false },
    scenario: "kip-1228",
    expectedKinds: [
      "stale-marker",
      "lost-write",
      "aborted-read",
      "torn-transaction",
      "premature-read",
      "hanging-transaction",
    ],
    budget: 10,
  },
  {
    name: "drop-transaction-version",
    description:
      "coordinator drops the TransactionVersion field (sends 0) on WriteTxnMarkers v2, so leaders use the legacy rule",
    overrides: { fillMarkerTransactionVersion: false },
    scenario: "kip-1228",
    expectedKinds: ["stale-marker"],
    budget: 60,
  },
  {
    name: "consumer-ignores-aborted-index",
    description: "read_committed consumer ignores the aborted-transaction index and returns aborted records",
    overrides: { consumerFiltersAborted: false },
    scenario: "kip-1228",
    expectedKinds: ["aborted-read"],
    budget: 10,
  },
  {
    name: "consumer-reads-past-lso",
    description: "read_committed consumer reads past the last stable offset, into open transactions",
    overrides: { consumerStopsAtLso: false },
    scenario: "kip-1228",
    expectedKinds: ["premature-read", "aborted-read"],
    budget: 5,
  },
  {
    name: "lso-stuck-after-completion",
    description: "leader does not advance the last stable offset when a transaction completes",
    overrides: { advanceLsoOnCompletion: false },
    scenario: "kip-1228",
    expectedKinds: ["hanging-transaction", "lost-write"],
    budget: 5,
  },
  {
    name: "hw-ignores-isr",
    description:
      "leader moves its high watermark to its own log end without waiting for the in-sync replicas, so acks=all acknowledges what a new leader may not have",
    overrides: { highWatermarkFromIsr: false },
    scenario: "leader-failover",
    expectedKinds: ["lost-write", "torn-transaction"],
    budget: 200,
  },
  {
    name: "append-retried-batch",
    description:
      "leader appends a retried (duplicate) produce batch as new data: no duplicate detection and no sequence check",
    overrides: { produceDuplicateDetection: false, produceSequenceCheck: false },
    scenario: "kafka-17754-tv2",
    expectedKinds: ["duplicate", "non-monotonic"],
    budget: 10,
  },
  {
    name: "endtxn-previous-epoch",
    description:
      "coordinator takes a TV2 EndTxn one epoch behind (a delayed EndTxn of the previous transaction) as the current one's",
    overrides: { endTxnEpochCheck: false },
    scenario: "kafka-17754-tv2",
    expectedKinds: ["premature-read", "aborted-read", "lost-write", "torn-transaction"],
    budget: 250,
  },
  {
    name: "no-kafka-19999-tolerance",
    description: "leader refuses an equal-epoch TV2 marker even when no transaction is open (KAFKA-19999 missing)",
    overrides: { equalEpochNoOpenTxnTolerance: false },
    scenario: "kip-1228",
    expectedKinds: ["hanging-transaction"],
    budget: 20,
  },
  {
    name: "kafka-19999-ignores-open-txn",
    description: "leader's KAFKA-19999 tolerance accepts an equal-epoch TV2 marker even while a transaction is open",
    overrides: { equalEpochToleranceIgnoresOpenTxn: true },
    scenario: "kip-1228",
    expectedKinds: ["stale-marker"],
    budget: 60,
  },
  {
    name: "tv2-retry-not-recognised",
    description:
      "TV2 coordinator does not recognise a retried EndTxn (epoch one behind): the producer whose first answer was lost is fenced",
    overrides: { recognizeTv2EndTxnRetry: false },
    scenario: "kafka-17754-tv2",
    expectedKinds: ["fatal-error"],
    budget: 15,
  },
  {
    name: "client-keeps-epoch-after-endtxn",
    description:
      "TV2 producer ignores the producer id and epoch of the EndTxn response and writes its next transaction at the old epoch",
    overrides: { adoptEndTxnEpoch: false },
    scenario: "kip-1228",
    expectedKinds: ["fatal-error"],
    budget: 5,
  },
  {
    name: "no-kip-447-generation-check",
    description:
      "group coordinator writes a TxnOffsetCommit without validating member and generation (the pre-KIP-447 gap), so a zombie processor's offsets commit",
    overrides: { txnOffsetCommitGenerationCheck: false },
    scenario: "kip-447-zombie",
    expectedKinds: ["zombie-commit"],
    budget: 10,
  },
  {
    name: "offset-fetch-not-stable",
    description:
      "a processor's OffsetFetch on assignment omits require_stable, so it starts from an offset a pending transaction is about to move",
    overrides: { offsetFetchRequireStable: false },
    scenario: "eos-processor",
    expectedKinds: ["duplicate-processing"],
    budget: 44,
  },
  {
    name: "group-coordinator-drops-transaction-version",
    description:
      "the group coordinator drops the WriteTxnMarkers TransactionVersion on its way to the offsets partition, so 4.2.1 leaders judge TV2 markers there by the legacy rule",
    overrides: { groupCoordinatorPassesTransactionVersion: false },
    scenario: "eos-processor",
    expectedKinds: ["stale-marker"],
    budget: 62,
  },
  {
    name: "processor-no-seek-after-abort",
    description:
      "a processor carries on from its fetched position after an aborted transaction instead of going back to the committed offsets",
    overrides: { processorSeeksToCommittedOnAbort: false },
    scenario: "eos-processor",
    expectedKinds: ["lost-processing"],
    budget: 3,
  },
];

/**
 * Candidates that turned out equivalent: another Kafka defence covers them, so no oracle can tell
 * them from the correct model (each was run; see docs/mutants.md for the measurement).
 */
export const EQUIVALENT_MUTANTS: readonly {
  name: string;
  overrides: Partial<ReleaseFlags>;
  scenario: string;
  why: string;
}[] = [
  {
    name: "no-duplicate-detection",
    overrides: { produceDuplicateDetection: false },
    scenario: "kafka-17754-tv2",
    why: "the sequence check refuses the retried batch (OUT_OF_ORDER_SEQUENCE_NUMBER: its sequence is not last+1), the producer aborts the transaction, and nothing wrong becomes visible; replaced by append-retried-batch",
  },
  {
    name: "no-sequence-check",
    overrides: { produceSequenceCheck: false },
    scenario: "kafka-17754-tv2",
    why: "duplicate detection (the last 5 batches per producer) recognises every retry: a retried batch keeps its sequences and the producer has at most 5 requests in flight per broker, no more than the leader retains, and a copy from an earlier transaction carries an older epoch and is refused for it (TV2 bumps the epoch at every EndTxn)",
  },
  {
    name: "produce-epoch-error-fatal",
    overrides: { produceInvalidEpochAbortable: false },
    scenario: "zombie-producer",
    why: "no kill in seeds 0..199 of zombie-producer nor of kip-1228: a produce gets INVALID_PRODUCER_EPOCH only after the epoch moved without its producer (a coordinator's timeout abort, or a newer instance's InitProducerId), a fence the fatal-error check counts as deserved; a late copy of a produce the producer gave up on is refused too, but its answer goes to a closed connection",
  },
  {
    name: "no-coordinator-epoch-check (TV2)",
    overrides: { coordinatorEpochCheck: false },
    scenario: "coordinator-failover",
    why: "on 4.2.1 with TV2 every old-coordinator copy carries an epoch <= the producer epoch the new coordinator's marker stored, so the strict rule rejects it when a transaction is open and KAFKA-19999 only lets it through when nothing is open; the mutant is caught under TV1 instead (tv1-coordinator-failover)",
  },
];

export function findMutant(name: string): Mutant | undefined {
  return MUTANTS.find((m) => m.name === name);
}

/** Every kind but model-error and step-mismatch: a mutant may break anything, but never the model itself. */
const ANY_SYMPTOM = VIOLATION_KINDS.filter((k) => k !== "model-error" && k !== "step-mismatch");

/** What a run with a mutant must show: any of its kinds within its budget; other symptoms are allowed. */
export function mutantExpectation(m: Mutant): Expectation {
  return { find: [], findAny: [...m.expectedKinds], within: m.budget, allow: [...ANY_SYMPTOM] };
}

/** The scenario as it runs under the mutant: same cluster and faults, the mutant's expectation. */
export function withMutant(loaded: LoadedScenario, m: Mutant): LoadedScenario {
  return { ...loaded, scenario: { ...loaded.scenario, expect: mutantExpectation(m) } };
}

/** Does this seed kill the mutant (show one of its expected kinds)? */
export function killsMutant(m: Mutant, result: Pick<RunResult, "violations">): boolean {
  return result.violations.some((v) => m.expectedKinds.includes(v.kind));
}
