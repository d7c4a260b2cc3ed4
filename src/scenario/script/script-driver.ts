import type { Cluster } from "../../kafka/cluster.js";
import type { ScriptRunEvents } from "../script-events.js";
import type { GhostLedger } from "../../oracle/ghost-ledger.js";
import { at } from "../../oracle/format.js";
import type { Violation } from "../../oracle/violation.js";
import type { Simulation, StopReason } from "../../sim/simulation.js";
import { SCRIPT_NODE_NAMES } from "./node-names.js";
import type { Script, ScriptStep } from "./script-schema.js";
import { StepContext } from "./step-context.js";
import type { Wait } from "./step-kind.js";
import { stepKind } from "./step-table.js";

/** One executed step of a script, for the step log, reports and the trace. */
export interface StepRecord {
  /** 1-based position in the script. */
  index: number;
  action: string;
  note: string | null;
  startMs: number;
  endMs: number;
  outcome: string;
  ok: boolean;
  /** Why the step failed (empty when ok). */
  problems: string[];
}

export interface ScriptRun {
  steps: StepRecord[];
  /** Every step ran and had its expected outcome. */
  completed: boolean;
  stop: StopReason;
}

/**
 * Runs a scripted scenario against a Cluster: each step acts on the model (client operations,
 * held messages, failovers, upgrades, direct requests), waits in virtual time for its outcome, and
 * compares it with the step's expectation. The first step that does not have its expected outcome
 * ends the script with a step-mismatch; the oracle keeps checking everything as usual. What each
 * kind of step does is in its step object (step-table.ts); this is the loop around them.
 */
export class ScriptDriver {
  private readonly ctx: StepContext;
  private readonly records: StepRecord[] = [];

  constructor(
    private readonly cluster: Cluster,
    private readonly ledger: GhostLedger,
    private readonly script: Script,
    /** Polled between events: true ends the script at once (a shrinker stopping at its violation). */
    private readonly abort: () => boolean = () => false,
  ) {
    this.ctx = new StepContext(cluster, ledger, script);
  }

  private get sim(): Simulation<ScriptRunEvents> {
    return this.cluster.sim;
  }

  /** Elect the coordinator, run every step, then the quiet period (when all steps passed). */
  run(): ScriptRun {
    const { sim, cluster } = this;
    cluster.net.setInterceptor(this.ctx.holds);
    cluster.startBrokers();
    const ids = this.script.producers.map((p) => p.transactionalId);
    const loaded = this.runUntil(
      { until: () => ids.every((id) => cluster.servingCoordinatorFor(id) !== null) },
      this.script.stepTimeoutMs,
    );
    if (loaded !== "done") return this.finish(false, loaded === "timeout" ? "max-time" : loaded);
    for (const [i, step] of this.script.steps.entries()) {
      const record = this.runStep(i + 1, step);
      if (record === "max-events" || record === "stopped") return this.finish(false, record);
      if (!record.ok) {
        this.ledger.report(this.mismatch(record));
        return this.finish(false, "stopped");
      }
    }
    // Holds that never caught anything stop catching; messages still held are never delivered.
    cluster.net.setInterceptor(null);
    sim.emit(SCRIPT_NODE_NAMES.script, "quiet-period", { untilMs: sim.nowMs + cluster.spec.bounds.quietPeriodMs });
    const stop = sim.run(
      { maxEvents: cluster.spec.bounds.maxEvents, maxTimeMs: sim.nowMs + cluster.spec.bounds.quietPeriodMs },
      this.abort,
    );
    return { steps: this.records, completed: stop !== "max-events" && stop !== "stopped", stop };
  }

  private finish(completed: boolean, stop: StopReason): ScriptRun {
    this.cluster.net.setInterceptor(null);
    return { steps: this.records, completed, stop };
  }

  /** Run the simulation until `wait.until` holds or time runs out (or the run is aborted). */
  private runUntil(wait: Wait, withinMs: number): "done" | "timeout" | "max-events" | "stopped" {
    const limitMs = Math.max(0, wait.forMs ?? withinMs);
    const stop = this.sim.run(
      { maxEvents: this.cluster.spec.bounds.maxEvents, maxTimeMs: this.sim.nowMs + limitMs },
      () => wait.until() || this.abort(),
    );
    if (stop === "max-events") return "max-events";
    if (this.abort()) return "stopped";
    return wait.until() ? "done" : "timeout";
  }

  /** One step: run its waits within the step's time bound, then compare what it saw with its `expect`. */
  private runStep(index: number, step: ScriptStep): StepRecord | "max-events" | "stopped" {
    const kind = stepKind(step);
    const action = kind.describe(step);
    const startMs = this.sim.nowMs;
    this.sim.emit(SCRIPT_NODE_NAMES.script, "script.step", { step: index, do: step.do, action });
    const timeoutMs = ("timeoutMs" in step ? step.timeoutMs : undefined) ?? this.script.stepTimeoutMs;
    const deadlineMs = startMs + timeoutMs;
    const gen = kind.run(step, this.ctx);
    let next = gen.next();
    while (!next.done) {
      const wait = next.value;
      const result =
        wait.forMs !== undefined ? this.runUntil(wait, wait.forMs) : this.runUntil(wait, deadlineMs - this.sim.nowMs);
      if (result === "max-events" || result === "stopped") return result;
      next = gen.next(result === "done");
    }
    const observation = next.value;
    const problems = [...observation.problems, ...(kind.expect?.(step, observation, this.ctx) ?? [])];
    const record: StepRecord = {
      index,
      action,
      note: step.note ?? null,
      startMs,
      endMs: this.sim.nowMs,
      outcome: observation.outcome,
      ok: problems.length === 0,
      problems,
    };
    this.records.push(record);
    this.sim.emit(SCRIPT_NODE_NAMES.script, "script.outcome", { step: index, ok: record.ok, outcome: record.outcome });
    return record;
  }

  private mismatch(failed: StepRecord): Violation {
    const lines = this.records.map(
      (r) => `${at(r.startMs)} step ${r.index} ${r.action}: ${r.outcome}${r.ok ? "" : "  <- MISMATCH"}`,
    );
    for (const p of failed.problems) lines.push(`${" ".repeat(10)} ${p}`);
    return {
      kind: "step-mismatch",
      summary: `step ${failed.index} (${failed.action}): ${failed.problems[0] ?? "failed"}`,
      explanation: lines,
      atMs: failed.endMs,
    };
  }
}

/** Run a script against a built cluster (see ScriptDriver). */
export function runScript(cluster: Cluster, ledger: GhostLedger, script: Script, abort?: () => boolean): ScriptRun {
  return new ScriptDriver(cluster, ledger, script, abort).run();
}
