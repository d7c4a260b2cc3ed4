import { filterReadCommitted } from "../../../kafka/client/read-committed-consumer.js";
import { Errors, errorName } from "../../../kafka/common/errors.js";
import type { KafkaResponse } from "../../../kafka/protocol.js";
import { noResponse, type Observation } from "../observation.js";
import { immediately, observed, type Step, type StepKind } from "../step-kind.js";

/** A check's `expect` against the fields it saw (a check that saw nothing reported that itself). */
function expectFields(expected: Record<string, unknown>, seen: Observation): string[] {
  return seen.fields === undefined ? [] : compareFields(expected, seen.fields);
}

/** checkTransaction: the coordinator's TransactionMetadata of a transactional.id. */
export const checkTransaction: StepKind<Step<"checkTransaction">> = {
  describe: (step) => `checkTransaction ${step.transactionalId}`,
  *run(step, ctx) {
    yield immediately;
    const coordinator = ctx.cluster.servingCoordinatorFor(step.transactionalId);
    const m = coordinator?.describe(step.transactionalId) ?? null;
    if (!m)
      return observed(`${step.transactionalId} is unknown to the coordinator`, [
        `expected ${step.transactionalId} at the coordinator, found ${coordinator ? "none" : "the coordinator loading"}`,
      ]);
    const partitions = [...m.topicPartitions].sort();
    const state = ctx.coordinatorState(step.transactionalId);
    return {
      ...observed(
        `${step.transactionalId}: ${state.shown}, producerId ${m.producerId}, epoch ${m.producerEpoch}, partitions [${partitions.join(", ")}] at ${coordinator?.id}`,
      ),
      fields: { state: state.state, producerId: m.producerId, producerEpoch: m.producerEpoch, partitions },
    };
  },
  expect(step, seen) {
    const e = step.expect;
    const partitions = e.partitions ? [...e.partitions].sort() : undefined;
    return expectFields({ state: e.state, producerId: e.producerId, producerEpoch: e.producerEpoch, partitions }, seen);
  },
  check(step, names, check) {
    for (const [pi, p] of (step.expect.partitions ?? []).entries())
      check.oneOf(names.partitions, p, ["expect", "partitions", pi], "a partition of the cluster");
  },
};

/** checkPartition: the partition leader's offsets, and a producer's state there. */
export const checkPartition: StepKind<Step<"checkPartition">> = {
  describe: (step) => `checkPartition ${step.partition}`,
  *run(step, ctx) {
    yield immediately;
    const leader = ctx.cluster.leaderOf(step.partition) ?? (ctx.cluster.replicasOf(step.partition)[0] as string);
    const log = ctx.cluster.brokers.get(leader)?.logs.get(step.partition);
    if (!log) throw new Error(`${leader} does not hold ${step.partition}`);
    const p = step.producer !== undefined ? ctx.producer(step.producer) : null;
    const entry = p ? log.producers.get(p.producerId) : undefined;
    const seen = {
      lastStableOffset: log.lastStableOffset(),
      highWatermark: log.highWatermark,
      logEndOffset: log.logEndOffset,
      openTransaction: entry ? entry.currentTxnFirstOffset !== null : false,
      producerEpoch: entry ? entry.producerEpoch : -1,
    };
    const who = p
      ? `; ${step.producer} (producerId ${p.producerId}): epoch ${seen.producerEpoch}, ${seen.openTransaction ? `transaction open from offset ${entry?.currentTxnFirstOffset}` : "no open transaction"}`
      : "";
    return {
      ...observed(
        `${step.partition} on ${leader}: LSO ${seen.lastStableOffset}, high watermark ${seen.highWatermark}, log end ${seen.logEndOffset}${who}`,
      ),
      fields: seen,
    };
  },
  expect: (step, seen) => expectFields(step.expect, seen),
  check(step, _names, check) {
    check.need(
      step.producer !== undefined ||
        (step.expect.openTransaction === undefined && step.expect.producerEpoch === undefined),
      ["expect"],
      "expected a producer for openTransaction or producerEpoch (whose state at the partition?)",
    );
  },
};

/** read: a Fetch from the partition leader at an isolation level, the values a consumer would see. */
export const read: StepKind<Step<"read">> = {
  describe: (step) => `read ${step.partition}`,
  *run(step, ctx) {
    const leader = ctx.cluster.leaderOf(step.partition) ?? (ctx.cluster.replicasOf(step.partition)[0] as string);
    let result: KafkaResponse | null = null;
    ctx.cluster.net.request(
      ctx.reader.to(leader),
      {
        api: "Fetch",
        replicaId: null,
        maxWaitMs: 0,
        isolation: step.isolation,
        partitions: [
          {
            partition: step.partition,
            fetchOffset: 0,
            currentLeaderEpoch: -1,
            lastFetchedEpoch: -1,
            maxBatches: 1_000_000,
          },
        ],
      },
      ctx.script.stepTimeoutMs,
      (r) => {
        if (r.kind === "response") result = r.body;
      },
    );
    yield { until: () => result !== null };
    const body = result as KafkaResponse | null;
    const data = body !== null && body.api === "Fetch" ? body.partitions[0] : undefined;
    if (data === undefined) return noResponse(`Fetch ${step.partition} from ${leader}`);
    if (data.errorCode !== Errors.NONE)
      return {
        outcome: `Fetch ${errorName(data.errorCode)}`,
        errors: [data.errorCode],
        problems: [`expected to read ${step.partition}, found ${errorName(data.errorCode)}`],
      };
    const values = filterReadCommitted(step.partition, data.batches, data.abortedTransactions).map((r) => r.value);
    const bound =
      step.isolation === "READ_COMMITTED" ? `LSO ${data.lastStableOffset}` : `high watermark ${data.highWatermark}`;
    return {
      ...observed(`${step.isolation} read of ${step.partition} up to ${bound}: [${values.join(", ")}]`),
      fields: { values },
    };
  },
  expect: (step, seen) => (step.expect ? expectFields({ values: step.expect.values }, seen) : []),
};

/** Compare expected fields (undefined = not expected) with what was seen; one problem per difference. */
function compareFields(expected: Record<string, unknown>, seen: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [key, want] of Object.entries(expected)) {
    if (want === undefined) continue;
    const got = seen[key];
    if (JSON.stringify(want) !== JSON.stringify(got))
      problems.push(`expected ${key} ${JSON.stringify(want)}, found ${JSON.stringify(got)}`);
  }
  return problems;
}
