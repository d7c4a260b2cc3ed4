import { isReleaseName, type ReleaseFlags, type ReleaseName, releaseProfile } from "../kafka/release.js";
import type { HarnessRelease } from "../harness/kafka-releases.js";
import { KafkaHarness } from "../harness/harness-process.js";
import { clientDifferenceLines } from "./client/client-report.js";
import { type ClientTable, runClientTable } from "./client/client-table.js";
import { runSequenceCampaign, type StepDivergence } from "./coordinator/sequence-campaign.js";
import { txnCoordinatorSurface } from "./coordinator/txn-coordinator-differential.js";
import { txnCoordinatorDivergenceStory } from "./coordinator/txn-coordinator-story.js";
import { txnMetadataSurface } from "./coordinator/txn-metadata-differential.js";
import { txnMetadataDivergenceStory } from "./coordinator/txn-metadata-story.js";
import { runLeaderCampaign } from "./leader/leader-differential.js";
import { leaderDivergenceStory } from "./leader/leader-story.js";

export const SURFACES = ["leader", "txnMetadata", "txnCoordinator", "client"] as const;
export type SurfaceName = (typeof SURFACES)[number];

/** The harness service a surface asks (jvm/PROTOCOL.md): its own name, except the client's. */
function serviceOf(surface: SurfaceName): string {
  return surface === "client" ? "transactionManager" : surface;
}

/** The first divergence of a surface, shrunk: its concrete ops and both sides' answers. */
export interface FirstDivergence {
  divergence: StepDivergence<{ op: string }> | null;
  ops: unknown[];
  model: unknown[];
  kafka: unknown[];
  /** What the sequence started from (txnMetadata's init, txnCoordinator's config and initial metadata). */
  setup?: unknown;
}

/** What one comparison surface found at one release. */
export interface SurfaceConformance {
  surface: SurfaceName;
  /** Generated sequences, or for the client surface the cells of its table (error x api x transaction version). */
  sequences: number;
  operations: number;
  divergentSequences: number;
  /** Divergent sequences by kind (op and first differing field), when the surface counts them. */
  classes: Record<string, number>;
  /** The first divergence, shrunk, as a story of both answers (empty when none). */
  story: string[];
  first: FirstDivergence | null;
  /** The client surface's whole table: Kafka's answer beside the model's in every cell. */
  client?: ClientTable;
  /** Wall time of this surface at this release, milliseconds (a measurement, never an input). */
  elapsedMs: number;
  /** Why the surface was not compared at this release (its adapter has no such service yet), or null. */
  skipped: string | null;
}

export interface ReleaseConformance {
  release: string;
  kafkaVersion: string;
  profile: string;
  /** The model profile judged, when jvm/releases.json names one the model does not have yet. */
  profileUsed: string;
  surfaces: SurfaceConformance[];
}

export interface ConformOptions {
  releases: readonly HarnessRelease[];
  sequences: number;
  seed: number;
  /** Flag overrides of the model (a mutant's): the model judged is the profile with these. */
  overrides: Partial<ReleaseFlags>;
  stopOnFirst: boolean;
  /** The surfaces to compare (default: every one). */
  surfaces?: readonly SurfaceName[];
  onProgress?: (release: string, surface: string, done: number, total: number) => void;
  now: () => number;
}

/** The model's release profile that claims to behave as a Kafka release (jvm/releases.json). */
export function profileFor(release: HarnessRelease): ReleaseName {
  if (isReleaseName(release.profile)) return release.profile;
  throw new Error(`jvm/releases.json: Kafka ${release.release}'s profile ${release.profile} is not a model release`);
}

/** Differential property testing of every requested release: Kafka's classes against the model's profile. */
export async function runConformance(options: ConformOptions): Promise<ReleaseConformance[]> {
  const out: ReleaseConformance[] = [];
  const surfaces = options.surfaces ?? SURFACES;
  for (const release of options.releases) {
    const harness = await KafkaHarness.start(release);
    try {
      const profileUsed = profileFor(release);
      const profile = releaseProfile(profileUsed, options.overrides);
      const results: SurfaceConformance[] = [];
      for (const surface of surfaces) {
        const started = options.now();
        if (!harness.services.includes(serviceOf(surface))) {
          results.push({
            surface,
            sequences: 0,
            operations: 0,
            divergentSequences: 0,
            classes: {},
            story: [],
            first: null,
            elapsedMs: 0,
            skipped: `jvm/adapter-${release.adapter} has no ${serviceOf(surface)} service yet`,
          });
          continue;
        }
        const onProgress = (done: number) => options.onProgress?.(release.release, surface, done, options.sequences);
        const common = {
          sequences: options.sequences,
          seed: options.seed,
          stopOnFirst: options.stopOnFirst,
          onProgress,
        };
        if (surface === "client") {
          // The whole table, every cell: error x api x transaction version (no sequences to draw).
          const table = await runClientTable({
            harness,
            flags: profile.flags,
            profile: profileUsed,
            onProgress: (done, total) => options.onProgress?.(release.release, surface, done, total),
          });
          results.push({
            surface,
            sequences: table.cells.length,
            operations: table.cells.length,
            divergentSequences: table.differing,
            classes: {},
            story: clientDifferenceLines([table]),
            first: null,
            client: table,
            elapsedMs: options.now() - started,
            skipped: null,
          });
        } else if (surface === "leader") {
          const r = await runLeaderCampaign({ harness, flags: profile.flags, ...common });
          results.push({
            surface,
            sequences: r.sequences,
            operations: r.operations,
            divergentSequences: r.divergentSequences,
            classes: {},
            story: r.first ? leaderDivergenceStory(release.release, r.first) : [],
            first: r.first,
            elapsedMs: options.now() - started,
            skipped: null,
          });
        } else if (surface === "txnMetadata") {
          const r = await runSequenceCampaign(txnMetadataSurface(harness, profile.flags), common);
          results.push({
            surface,
            sequences: r.sequences,
            operations: r.operations,
            divergentSequences: r.divergentSequences,
            classes: r.classes,
            story: r.first ? txnMetadataDivergenceStory(release.release, r.first) : [],
            first: r.first ? { ...r.first, setup: r.first.init } : null,
            elapsedMs: options.now() - started,
            skipped: null,
          });
        } else {
          const r = await runSequenceCampaign(txnCoordinatorSurface(harness, profile), common);
          results.push({
            surface,
            sequences: r.sequences,
            operations: r.operations,
            divergentSequences: r.divergentSequences,
            classes: r.classes,
            story: r.first ? txnCoordinatorDivergenceStory(release.release, r.first) : [],
            first: r.first
              ? {
                  ...r.first,
                  setup: { config: r.first.sequence.config, initialMetadata: r.first.sequence.initialMetadata },
                }
              : null,
            elapsedMs: options.now() - started,
            skipped: null,
          });
        }
      }
      out.push({
        release: release.release,
        kafkaVersion: harness.kafkaVersion,
        profile: release.profile,
        profileUsed,
        surfaces: results,
      });
    } finally {
      await harness.close();
    }
  }
  return out;
}
