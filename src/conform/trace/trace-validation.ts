import { runConfigFor } from "../../fuzz/campaign/campaign.js";
import { runSeed } from "../../fuzz/run/run-seed.js";
import type { LoadedScenario } from "../../scenario/loader.js";
import type { ReleaseFlags } from "../../kafka/release.js";
import { KafkaHarness } from "../../harness/harness-process.js";
import { type HarnessRelease, HarnessUnavailable, harnessReleases } from "../../harness/kafka-releases.js";
import { type FieldDifference, firstDifference } from "../compare.js";
import { DEFAULT_LEADER_CONFIG, type LeaderOp, type LeaderResult } from "../leader/leader-ops.js";
import { type ReplicaSegment, TraceRecorder } from "./replica-trace.js";

/** Informative reply fields: the model's exception classes and messages are its own. */
const INFORMATIVE = new Set(["exception", "message", "id"]);

/** The first step of one replica's trace where Kafka's log answered otherwise than the model's. */
export interface TraceDivergence {
  seed: number;
  broker: string;
  partition: string;
  profile: string;
  release: string;
  step: number;
  difference: FieldDifference;
  /** The steps of the segment up to the divergent one, with both answers. */
  ops: LeaderOp[];
  model: LeaderResult[];
  kafka: LeaderResult[];
}

/** What trace validation found at one Kafka release. */
export interface TraceReleaseResult {
  /**
   * Replica traces of brokers the scenario runs with flag overrides (a bug switched on, a fix no
   * release has): such a broker is no release, so it is not judged; counted here.
   */
  skippedOverridden: number;
  release: string;
  kafkaVersion: string;
  profile: string;
  segments: number;
  operations: number;
  divergentSegments: number;
  first: TraceDivergence | null;
}

export interface TraceValidationOptions {
  loaded: LoadedScenario;
  seedStart: number;
  seeds: number;
  /** Flag overrides of the model (a mutant's). */
  overrides: Partial<ReleaseFlags>;
  stopOnFirst: boolean;
  onProgress?: (done: number, total: number) => void;
}

/**
 * Trace validation: every decision the model's logs make in a run (each verification, produce
 * append, marker append or refusal, follower append, truncation, high-watermark move, expiry) is
 * replayed on Kafka's UnifiedLog of the release the broker ran at that moment, replica by replica,
 * and compared step by step: the answer and the log's state after it.
 */
export async function validateTraces(options: TraceValidationOptions): Promise<TraceReleaseResult[]> {
  const config = runConfigFor(options.loaded, options.overrides);
  const overridden = new Set(
    options.loaded.scenario.cluster.brokers.filter((b) => Object.keys(b.overrides).length > 0).map((b) => b.id),
  );
  const byProfile = releaseForProfile();
  const harnesses = new Map<string, KafkaHarness>();
  const results = new Map<string, TraceReleaseResult>();
  try {
    for (let i = 0; i < options.seeds; i++) {
      const seed = options.seedStart + i;
      const recorder = new TraceRecorder();
      runSeed(config, { seed }, { logObservers: recorder });
      recorder.finish();
      const pending: Promise<void>[] = [];
      for (const segment of recorder.segments) {
        if (segment.steps.length === 0) continue;
        const release = byProfile.get(segment.profile);
        if (!release)
          throw new HarnessUnavailable(
            `no Kafka release of jvm/releases.json stands for the model's profile ${segment.profile}`,
          );
        const harness = await harnessFor(harnesses, release);
        const result = resultFor(results, release, harness);
        if (overridden.has(segment.broker)) {
          result.skippedOverridden++;
          continue;
        }
        pending.push(
          replay(harness, segment).then((divergence) => {
            result.segments++;
            result.operations += segment.steps.length;
            if (!divergence) return;
            result.divergentSegments++;
            result.first ??= { seed, release: release.release, ...divergence };
          }),
        );
      }
      await Promise.all(pending);
      options.onProgress?.(i + 1, options.seeds);
      if (options.stopOnFirst && [...results.values()].some((r) => r.first)) break;
    }
  } finally {
    await Promise.all([...harnesses.values()].map((h) => h.close()));
  }
  return [...results.values()];
}

/** The harness release that stands for each model profile: the first of jvm/releases.json naming it. */
function releaseForProfile(): Map<string, HarnessRelease> {
  const map = new Map<string, HarnessRelease>();
  for (const r of harnessReleases()) if (!map.has(r.profile)) map.set(r.profile, r);
  return map;
}

async function harnessFor(harnesses: Map<string, KafkaHarness>, release: HarnessRelease): Promise<KafkaHarness> {
  let harness = harnesses.get(release.release);
  if (!harness) {
    harness = await KafkaHarness.start(release);
    harnesses.set(release.release, harness);
  }
  return harness;
}

function resultFor(
  results: Map<string, TraceReleaseResult>,
  release: HarnessRelease,
  harness: KafkaHarness,
): TraceReleaseResult {
  let result = results.get(release.release);
  if (!result) {
    result = {
      release: release.release,
      kafkaVersion: harness.kafkaVersion,
      profile: release.profile,
      skippedOverridden: 0,
      segments: 0,
      operations: 0,
      divergentSegments: 0,
      first: null,
    };
    results.set(release.release, result);
  }
  return result;
}

/** One segment on Kafka's log; the first compared step that differs, or null. */
async function replay(
  harness: KafkaHarness,
  segment: ReplicaSegment,
): Promise<Omit<TraceDivergence, "seed" | "release"> | null> {
  const ops = segment.steps.map((s) => s.op);
  const reply = await harness.request({
    service: "leader",
    // The broker's own expiry (a seed of everything draws one); without it, Kafka's default.
    config: {
      ...DEFAULT_LEADER_CONFIG,
      producerIdExpirationMs: segment.producerIdExpirationMs ?? DEFAULT_LEADER_CONFIG.producerIdExpirationMs,
    },
    ops,
  });
  const kafka = reply.results as LeaderResult[];
  if (!Array.isArray(kafka) || kafka.length !== ops.length)
    throw new Error(
      `the leader service answered ${Array.isArray(kafka) ? kafka.length : "no"} results for ${ops.length} ops`,
    );
  for (let step = 0; step < segment.steps.length; step++) {
    const s = segment.steps[step];
    if (!s?.compare) continue;
    const difference = firstDifference(s.model, kafka[step], INFORMATIVE);
    if (difference)
      return {
        broker: segment.broker,
        partition: segment.partition,
        profile: segment.profile,
        step,
        difference,
        ops: ops.slice(0, step + 1),
        model: segment.steps.slice(0, step + 1).map((x) => x.model),
        kafka: kafka.slice(0, step + 1),
      };
  }
  return null;
}
