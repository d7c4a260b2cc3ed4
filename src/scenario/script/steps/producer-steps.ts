import type { ClientResult, ScriptedProducer } from "../../../kafka/client/scripted-producer.js";
import { errorName } from "../../../kafka/common/errors.js";
import { noResponse } from "../observation.js";
import { expectResponse } from "../response-expect.js";
import type { StepContext } from "../step-context.js";
import { immediately, type Step, type StepKind, type StepRun } from "../step-kind.js";

/** A client operation of a scripted producer: one request, its answer awaited (no automatic retry). */
type ClientOp = (p: ScriptedProducer, done: (r: ClientResult) => void) => void;

function* clientOp(ctx: StepContext, name: string, op: ClientOp, needsTxn = false): StepRun {
  const p = ctx.producer(name);
  const transactionalId = p.config.transactionalId;
  if (needsTxn && p.currentTxn === null) {
    return {
      outcome: "refused by the client",
      errors: [],
      transactionalId,
      problems: [
        `${name} has no open transaction (beginTransaction first); KafkaProducer would throw IllegalStateException`,
      ],
    };
  }
  let result: ClientResult | null = null;
  op(p, (r) => {
    result = r;
  });
  yield { until: () => result !== null };
  if (result === null) return noResponse(`${name} got no answer in time`, transactionalId);
  const r = result as ClientResult;
  const offset = r.baseOffset !== null ? ` at offset ${r.baseOffset}` : "";
  return {
    outcome: `${r.api} ${errorName(r.errorCode)}${offset}; ${name} has producerId ${r.producerId}, epoch ${r.producerEpoch}`,
    errors: [r.errorCode],
    producerId: r.producerId,
    producerEpoch: r.producerEpoch,
    transactionalId,
    problems: [],
  };
}

const byProducer = (step: { do: string; producer: string }) => `${step.do} ${step.producer}`;

export const initTransactions: StepKind<Step<"initTransactions">> = {
  describe: byProducer,
  run: (step, ctx) => clientOp(ctx, step.producer, (p, done) => p.initTransactions(done)),
  expect: expectResponse,
};

export const beginTransaction: StepKind<Step<"beginTransaction">> = {
  describe: byProducer,
  *run(step, ctx) {
    const p = ctx.producer(step.producer);
    if (p.currentTxn !== null) {
      return {
        outcome: "refused by the client",
        errors: [],
        problems: [
          `${step.producer} already has ${p.currentTxn} open; KafkaProducer would throw IllegalStateException`,
        ],
      };
    }
    const txn = p.beginTransaction();
    yield immediately;
    return { outcome: `${txn} begun (producerId ${p.producerId}, epoch ${p.producerEpoch})`, errors: [], problems: [] };
  },
};

export const send: StepKind<Step<"send">> = {
  describe: (step) => `send ${step.producer} ${step.partition} "${step.value}"`,
  run: (step, ctx) => clientOp(ctx, step.producer, (p, done) => p.send(step.partition, step.value, done), true),
  expect: expectResponse,
};

/** commitTransaction / abortTransaction: EndTxn of the open transaction. */
function endTransaction(commit: boolean): StepKind<Step<"commitTransaction" | "abortTransaction">> {
  return {
    describe: byProducer,
    run: (step, ctx) => clientOp(ctx, step.producer, (p, done) => p.endTransaction(commit, done), true),
    expect: expectResponse,
  };
}

export const commitTransaction = endTransaction(true);
export const abortTransaction = endTransaction(false);
