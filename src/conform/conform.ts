import type { ReleaseFlags } from "../kafka/release.js";
import type { HarnessRelease } from "../harness/kafka-releases.js";
import { KafkaHarness } from "../harness/harness-process.js";
import { type LeaderComparison, modelFlags, runLeaderCampaign } from "./leader/leader-differential.js";
import { leaderDivergenceStory } from "./leader/leader-story.js";

/** What one comparison surface found at one release. */
export interface SurfaceConformance {
  surface: "leader";
  sequences: number;
  operations: number;
  divergentSequences: number;
  /** The first divergence, shrunk, as a story of both answers (empty when none). */
  story: string[];
  first: LeaderComparison | null;
  /** Wall time of this surface at this release, milliseconds (a measurement, never an input). */
  elapsedMs: number;
}

export interface ReleaseConformance {
  release: string;
  kafkaVersion: string;
  profile: string;
  surfaces: SurfaceConformance[];
}

export interface ConformOptions {
  releases: readonly HarnessRelease[];
  sequences: number;
  seed: number;
  /** Flag overrides of the model (a mutant's): the model judged is the profile with these. */
  overrides: Partial<ReleaseFlags>;
  stopOnFirst: boolean;
  onProgress?: (release: string, surface: string, done: number, total: number) => void;
  now: () => number;
}

/** Differential property testing of every requested release: Kafka's classes against the model's profile. */
export async function runConformance(options: ConformOptions): Promise<ReleaseConformance[]> {
  const out: ReleaseConformance[] = [];
  for (const release of options.releases) {
    const harness = await KafkaHarness.start(release);
    try {
      const flags = modelFlags(release, options.overrides);
      const started = options.now();
      const leader = await runLeaderCampaign({
        harness,
        flags,
        sequences: options.sequences,
        seed: options.seed,
        stopOnFirst: options.stopOnFirst,
        onProgress: (done) => options.onProgress?.(release.release, "leader", done, options.sequences),
      });
      out.push({
        release: release.release,
        kafkaVersion: harness.kafkaVersion,
        profile: release.profile,
        surfaces: [
          {
            surface: "leader",
            sequences: leader.sequences,
            operations: leader.operations,
            divergentSequences: leader.divergentSequences,
            story: leader.first ? leaderDivergenceStory(release.release, leader.first) : [],
            first: leader.first,
            elapsedMs: options.now() - started,
          },
        ],
      });
    } finally {
      await harness.close();
    }
  }
  return out;
}
