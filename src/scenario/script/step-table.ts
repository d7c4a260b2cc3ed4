import type { ScriptStep } from "./script-schema.js";
import type { StepKind } from "./step-kind.js";
import { checkPartition, checkTransaction, read } from "./steps/check-steps.js";
import { failover, stall, upgrade } from "./steps/cluster-steps.js";
import { drop, duplicate, hold, release } from "./steps/hold-steps.js";
import {
  abortTransaction,
  beginTransaction,
  commitTransaction,
  initTransactions,
  send,
} from "./steps/producer-steps.js";
import { request } from "./steps/request-step.js";
import { wait, waitFor } from "./steps/time-steps.js";

type StepTable = { [D in ScriptStep["do"]]: StepKind<Extract<ScriptStep, { do: D }>> };

/** Every kind of script step by its `do`; the type makes a kind the schema knows and this table lacks an error. */
const STEP_KINDS: StepTable = {
  // client operations of a scripted producer
  initTransactions,
  beginTransaction,
  send,
  commitTransaction,
  abortTransaction,
  // network control
  hold,
  release,
  duplicate,
  drop,
  // cluster control
  failover,
  upgrade,
  stall,
  // direct requests
  request,
  // time
  wait,
  waitFor,
  // checks
  checkTransaction,
  checkPartition,
  read,
};

/** The kind of a step. */
export function stepKind<S extends ScriptStep>(step: S): StepKind<S> {
  return STEP_KINDS[step.do] as StepKind<ScriptStep>;
}

/** A step as one short line ("commitTransaction p0", "release stale-copy"). */
export function describeStep(step: ScriptStep): string {
  return stepKind(step).describe(step);
}
