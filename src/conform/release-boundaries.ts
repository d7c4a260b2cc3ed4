import { type FlagName, FLAG_NAMES, type ReleaseFlags, RELEASES } from "../kafka/release.js";
import { type HarnessRelease, harnessReleases } from "../harness/kafka-releases.js";
import { profileFor, runConformance, type SurfaceName } from "./conform.js";

/** One flag whose value changes between two neighbouring releases: a fix (or a feature) between them. */
export interface FlagChange {
  flag: FlagName;
  before: ReleaseFlags[FlagName];
  after: ReleaseFlags[FlagName];
}

/** Two neighbouring releases of jvm/releases.json whose model profiles differ, and how. */
export interface ReleaseBoundary {
  before: HarnessRelease;
  after: HarnessRelease;
  changes: FlagChange[];
}

/** One side of a switch check: the release's profile with one flag set to the other side's value. */
export interface SwitchSide {
  release: string;
  /** The value the flag was switched to (the other release's). */
  switchedTo: ReleaseFlags[FlagName];
  /** The surface whose comparison diverged first, or null when none did within the budget. */
  divergedOn: SurfaceName | null;
  /** The first divergence told with both answers (empty when none). */
  story: string[];
}

/** The surfaces on which a release's own profile agrees with its Kafka: only they can judge a switch. */
export interface Baseline {
  release: string;
  agreeing: SurfaceName[];
  /** Surfaces where the profile itself diverged (or the adapter has no service): a switch is not judged there. */
  unusable: SurfaceName[];
}

export interface SwitchCheck {
  boundary: string;
  flag: FlagName;
  /** The profile of the release before the boundary, with the flag switched to the value after it. */
  atBefore: SwitchSide;
  /** The profile of the release after the boundary, with the flag switched back to the value before it. */
  atAfter: SwitchSide;
}

/**
 * The boundaries between consecutive releases of jvm/releases.json whose profiles differ, with the
 * flags that differ (in FLAG_NAMES order). Releases sharing a profile (4.2.1 and 4.2.2) make none.
 */
export function releaseBoundaries(releases: readonly HarnessRelease[] = harnessReleases()): ReleaseBoundary[] {
  const out: ReleaseBoundary[] = [];
  for (let i = 1; i < releases.length; i++) {
    const before = releases[i - 1] as HarnessRelease;
    const after = releases[i] as HarnessRelease;
    const a = RELEASES[profileFor(before)];
    const b = RELEASES[profileFor(after)];
    const changes = FLAG_NAMES.filter((f) => a[f] !== b[f]).map((flag) => ({ flag, before: a[flag], after: b[flag] }));
    if (changes.length > 0) out.push({ before, after, changes });
  }
  return out;
}

export interface BoundaryCheckOptions {
  sequences: number;
  seed: number;
  /** Check only the boundaries that change this flag (default: every flag of every boundary). */
  flag?: FlagName;
  onProgress?: (line: string) => void;
  now: () => number;
}

/**
 * The release boundaries judged by Kafka's classes: for each flag that changes between two
 * neighbouring releases, each side's profile with that one flag switched to the other side's value
 * is compared with that side's Kafka, every surface, until the first divergence. A flag whose switch
 * diverges on both sides is a difference both releases' classes show; one that never diverges is one
 * no surface of the harness observes (the check says so, it does not pass it).
 */
export async function checkReleaseBoundaries(
  options: BoundaryCheckOptions,
): Promise<{ checks: SwitchCheck[]; baselines: Baseline[] }> {
  const checks: SwitchCheck[] = [];
  const baselines = new Map<string, Baseline>();
  const baselineOf = async (release: HarnessRelease): Promise<Baseline> => {
    let b = baselines.get(release.release);
    if (!b) {
      options.onProgress?.(`${release.release}: its own profile first`);
      const [r] = await runConformance({ ...common(options), releases: [release], overrides: {} });
      const surfaces = r?.surfaces ?? [];
      b = {
        release: release.release,
        agreeing: surfaces.filter((s) => !s.skipped && s.divergentSequences === 0).map((s) => s.surface),
        unusable: surfaces.filter((s) => s.skipped || s.divergentSequences > 0).map((s) => s.surface),
      };
      baselines.set(release.release, b);
    }
    return b;
  };
  for (const boundary of releaseBoundaries()) {
    for (const change of boundary.changes) {
      if (options.flag !== undefined && change.flag !== options.flag) continue;
      const name = `${boundary.before.release} -> ${boundary.after.release}`;
      options.onProgress?.(`${name}: ${change.flag}`);
      const before = await baselineOf(boundary.before);
      const after = await baselineOf(boundary.after);
      const atBefore = await switchedSide(boundary.before, before, { [change.flag]: change.after }, options);
      const atAfter = await switchedSide(boundary.after, after, { [change.flag]: change.before }, options);
      checks.push({ boundary: name, flag: change.flag, atBefore, atAfter });
    }
  }
  return { checks, baselines: [...baselines.values()] };
}

function common(options: BoundaryCheckOptions) {
  return { sequences: options.sequences, seed: options.seed, stopOnFirst: true, now: options.now };
}

/** One release's profile with one flag switched, on the surfaces where its own profile agrees. */
async function switchedSide(
  release: HarnessRelease,
  baseline: Baseline,
  override: Partial<ReleaseFlags>,
  options: BoundaryCheckOptions,
): Promise<SwitchSide> {
  const switchedTo = Object.values(override)[0] as ReleaseFlags[FlagName];
  if (baseline.agreeing.length === 0) return { release: release.release, switchedTo, divergedOn: null, story: [] };
  const [result] = await runConformance({
    ...common(options),
    releases: [release],
    overrides: override,
    surfaces: baseline.agreeing,
  });
  const diverged = result?.surfaces.find((s) => s.divergentSequences > 0) ?? null;
  return { release: release.release, switchedTo, divergedOn: diverged?.surface ?? null, story: diverged?.story ?? [] };
}
