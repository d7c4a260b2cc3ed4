import { errorCode, errorName } from "../../kafka/common/errors.js";
import type { Observation } from "./observation.js";
import type { ResponseExpect } from "./script-schema.js";
import type { StepContext } from "./step-context.js";

/**
 * The `expect` of a step that gets a response (client operations, release, duplicate, request):
 * its error code, producer id and epoch, and the coordinator's state of its transactional.id after it.
 */
export function expectResponse(step: { expect?: ResponseExpect | undefined }, seen: Observation, ctx: StepContext) {
  return step.expect === undefined ? [] : responseProblems(step.expect, seen, ctx);
}

function responseProblems(expect: ResponseExpect, seen: Observation, ctx: StepContext): string[] {
  const problems: string[] = [];
  if (expect.error !== undefined) {
    const wanted = errorCode(expect.error) as number;
    const wrong = seen.errors.filter((e) => e !== wanted);
    if (seen.errors.length === 0) problems.push(`expected error ${expect.error}, found no response`);
    else if (wrong.length > 0)
      problems.push(`expected error ${expect.error}, found ${[...new Set(seen.errors)].map(errorName).join(", ")}`);
  }
  if (expect.producerId !== undefined && seen.producerId !== expect.producerId)
    problems.push(`expected producerId ${expect.producerId}, found ${seen.producerId ?? "none"}`);
  if (expect.producerEpoch !== undefined && seen.producerEpoch !== expect.producerEpoch)
    problems.push(`expected producerEpoch ${expect.producerEpoch}, found ${seen.producerEpoch ?? "none"}`);
  if (expect.state !== undefined) {
    const found =
      seen.transactionalId !== undefined
        ? ctx.coordinatorState(seen.transactionalId)
        : { state: "unknown", shown: "unknown (the step names no transactional.id)" };
    if (found.state !== expect.state)
      problems.push(
        `expected ${seen.transactionalId ?? "the transaction"} in ${expect.state} at the coordinator, found ${found.shown}`,
      );
  }
  return problems;
}
