import type { ClusterEvents } from "../kafka/trace-events.js";
import type { ScriptStep } from "./script/script-schema.js";

/** The trace events of a scripted scenario's driver (script-driver.ts), besides the cluster's own. */
export interface ScriptEvents {
  /** Step `step` (from 1) starts: its `do` and the step as one line. */
  "script.step": { step: number; do: ScriptStep["do"]; action: string };
  /** Step `step` ended: what it observed, and whether that is what the script expected. */
  "script.outcome": { step: number; ok: boolean; outcome: string };
}

/** Every event of a scripted run: the cluster's (the script starts its quiet period itself) and the script's. */
export type ScriptRunEvents = ClusterEvents & ScriptEvents;
