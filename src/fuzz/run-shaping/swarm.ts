import { NODE_FAULT_LIST, type NodeFaultField } from "../../kafka/faults/registry.js";
import type { ClusterSpec, FaultSpec } from "../../kafka/cluster-spec.js";
import type { Scenario } from "../../scenario/schema.js";
import type { ChoiceSource } from "../../sim/choice-tape.js";
import type { LinkFaults } from "../../sim/network.js";

/** The choice stream of a swarm run's fault-mix draws. */
export const SWARM_STREAM = "swarm";

/**
 * One fault rate that swarm testing may switch off or rescale: read and written on the model's
 * ClusterSpec (parts per million), and written on a scenario (a probability) so a swarm run can be
 * turned into a plain run of a scenario with those rates.
 */
interface FaultKnob {
  name: string;
  get(spec: ClusterSpec): number;
  set(spec: ClusterSpec, ppm: number): void;
  setScenario(s: Scenario, probability: number): void;
}

type LinkField = "slow" | "drop" | "duplicate" | "reorder";
type ScenarioLink = NonNullable<Scenario["faults"]["markerRequests"]>;

function linkKnobs(
  label: string,
  link: (faults: FaultSpec) => LinkFaults | null,
  scenarioLink: (s: Scenario) => ScenarioLink | undefined,
): FaultKnob[] {
  const knob = (field: LinkField): FaultKnob => ({
    name: `${label} ${field}`,
    get: (s) => {
      const l = link(s.faults);
      if (!l) return 0;
      return field === "slow"
        ? l.delay.slowPpm
        : field === "drop"
          ? l.dropPpm
          : field === "duplicate"
            ? l.duplicatePpm
            : l.reorderPpm;
    },
    set: (s, ppm) => {
      const l = link(s.faults);
      if (!l) return;
      if (field === "slow") l.delay.slowPpm = ppm;
      else if (field === "drop") l.dropPpm = ppm;
      else if (field === "duplicate") l.duplicatePpm = ppm;
      else l.reorderPpm = ppm;
    },
    setScenario: (s, p) => {
      const l = scenarioLink(s);
      if (!l) return;
      if (field === "slow") l.slow.probability = p;
      else l[field] = p;
    },
  });
  return [knob("slow"), knob("drop"), knob("duplicate"), knob("reorder")];
}

/** Node-level faults of the nemesis: the same field names in the ClusterSpec and in a scenario. */
function nodeKnob(field: NodeFaultField, name: string): FaultKnob {
  return {
    name,
    get: (s) => s.faults[field].ppm,
    set: (s, ppm) => void (s.faults[field].ppm = ppm),
    setScenario: (s, p) => void (s.faults[field].probability = p),
  };
}

/** Every fault rate of a ClusterSpec, in a fixed order (the order of the draws on the tape). */
const KNOBS: readonly FaultKnob[] = [
  ...linkKnobs(
    "network",
    (f) => f.network,
    (s) => s.faults.network,
  ),
  ...linkKnobs(
    "marker",
    (f) => f.markerRequests,
    (s) => s.faults.markerRequests,
  ),
  // The registered faults (src/kafka/faults/registry.ts), in their draw order.
  ...NODE_FAULT_LIST.filter((f) => f.swarm !== false).map((f) => nodeKnob(f.field, f.name)),
];

/**
 * Rate multipliers as [numerator, denominator]; option 0 keeps the scenario's rate, so the
 * simplest tape is the scenario itself with every fault kind switched off.
 */
const SCALES: readonly (readonly [number, number])[] = [
  [1, 1],
  [1, 4],
  [4, 1],
  [16, 1],
];

/** The number of scale options (for mutating a setting). */
export const SWARM_SCALES = SCALES.length;

/** One fault kind's setting in a swarm run: off, or on at SCALES[scale] times the scenario's rate. */
export type SwarmSetting = { on: false } | { on: true; scale: number };

function scaleText([num, den]: readonly [number, number]): string {
  return den === 1 ? `x${num}` : `x1/${den}`;
}

function scaled(ppm: number, setting: SwarmSetting): number {
  if (!setting.on) return 0;
  const [num, den] = SCALES[setting.scale] as readonly [number, number];
  return Math.min(1_000_000, Math.floor((ppm * num) / den));
}

export interface SwarmDraw {
  spec: ClusterSpec;
  /** One line: which fault kinds are on and at what multiple of the scenario's rate. */
  summary: string;
}

/**
 * Swarm testing (Groce et al. 2012; TigerBeetle's and FoundationDB's simulators): each run first
 * draws which of the scenario's fault kinds are on (option 0 = off) and, for those on, a multiple of
 * the scenario's rate. Kinds the scenario leaves at 0 stay off, so a swarm run never leaves the
 * scenario's fault vocabulary. The draws are on the choice tape (stream "swarm"), so a swarm run
 * replays exactly.
 */
export function drawSwarm(base: ClusterSpec, choices: ChoiceSource): SwarmDraw {
  const stream = choices.stream(SWARM_STREAM);
  const spec = structuredClone(base);
  const parts: string[] = [];
  for (const knob of KNOBS) {
    const ppm = knob.get(base);
    if (ppm <= 0) continue;
    const setting: SwarmSetting =
      stream.pick(2) === 1 ? { on: true, scale: stream.pick(SCALES.length) } : { on: false };
    knob.set(spec, scaled(ppm, setting));
    parts.push(`${knob.name} ${setting.on ? scaleText(SCALES[setting.scale] as readonly [number, number]) : "off"}`);
  }
  return {
    spec,
    summary: parts.length > 0 ? `swarm: ${parts.join(", ")}` : "swarm: the scenario has no fault rates to vary",
  };
}

/** The settings a swarm tape encodes, one per fault kind the scenario has a rate for. */
export function decodeSwarm(base: ClusterSpec, draws: readonly number[]): SwarmSetting[] {
  const settings: SwarmSetting[] = [];
  let position = 0;
  for (const knob of KNOBS) {
    if (knob.get(base) <= 0) continue;
    const on = (draws[position++] ?? 0) % 2 === 1;
    settings.push(on ? { on, scale: (draws[position++] ?? 0) % SCALES.length } : { on });
  }
  return settings;
}

/** The "swarm" stream that makes drawSwarm choose these settings. */
export function encodeSwarm(settings: readonly SwarmSetting[]): number[] {
  return settings.flatMap((s) => (s.on ? [1, s.scale] : [0]));
}

/** The fault kind a late first copy of a WriteTxnMarkers request hangs on (a KNOBS name). */
const MARKER_SLOW = "marker slow";

/**
 * Where a cold search under TCP starts aiming. There a late marker copy is the first copy of a
 * WriteTxnMarkers request that the coordinator timed out and re-sent while the copy was still on
 * its way (TCP's links never duplicate): the first copy slower than the request timeout, the
 * re-send not. If a copy is that slow with chance q, the pair has chance q(1 - q), highest at
 * q = 1/2. The scenario's own mix with the marker link's slow rate at the scale that brings q
 * nearest 1/2 (every other kind at the scenario's rate); null when the scenario's own rate is
 * already nearest, when the network is adversarial (a late copy is a duplicate there) or when no
 * slow marker copy can outlast the timeout.
 */
export function lateFirstCopyMix(base: ClusterSpec): { settings: SwarmSetting[]; summary: string } | null {
  const link = base.faults.markerRequests;
  if (link?.model !== "tcp" || link.delay.slowPpm <= 0) return null;
  const { slowMinMs, slowMaxMs } = link.delay;
  // The share of slow delays past the timeout (a slow delay is drawn evenly over its range).
  const past = Math.max(0, Math.min(1, (slowMaxMs - base.broker.requestTimeoutMs) / (slowMaxMs - slowMinMs + 1)));
  if (past === 0) return null;
  const distance = (scale: number) =>
    Math.abs((scaled(link.delay.slowPpm, { on: true, scale }) / 1_000_000) * past - 0.5);
  let best = 0;
  for (let scale = 1; scale < SCALES.length; scale++) if (distance(scale) < distance(best)) best = scale;
  if (best === 0) return null;
  const settings: SwarmSetting[] = KNOBS.filter((k) => k.get(base) > 0).map((k) =>
    k.name === MARKER_SLOW ? { on: true, scale: best } : { on: true, scale: 0 },
  );
  return { settings, summary: `${MARKER_SLOW} ${scaleText(SCALES[best] as readonly [number, number])}` };
}

/**
 * The scenario with a swarm run's fault rates written in: a plain run of it with the rest of the
 * tape is the same run (same trace hash). What lets seed files, the shrinker and replay take swarm
 * findings without knowing about strategies.
 */
export function scenarioWithSwarm(scenario: Scenario, base: ClusterSpec, draws: readonly number[]): Scenario {
  const out = structuredClone(scenario);
  const settings = decodeSwarm(base, draws);
  let i = 0;
  for (const knob of KNOBS) {
    const ppm = knob.get(base);
    if (ppm <= 0) continue;
    knob.setScenario(out, scaled(ppm, settings[i++] as SwarmSetting) / 1_000_000);
  }
  return out;
}
