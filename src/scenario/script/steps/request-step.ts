import { Errors } from "../../../kafka/common/errors.js";
import type { KafkaRequest, KafkaResponse } from "../../../kafka/protocol.js";
import { encodeWriteTxnMarkersRequest } from "../../../kafka/wire/write-txn-markers.js";
import type { NameCheck, ScriptNames } from "../name-checks.js";
import { oneOf } from "../name-checks.js";
import { SCRIPT_NODE_NAMES } from "../node-names.js";
import { noResponse, observeResponse } from "../observation.js";
import { expectResponse } from "../response-expect.js";
import type { MarkerSpec, RequestBody } from "../script-schema.js";
import type { StepContext } from "../step-context.js";
import type { Step, StepKind } from "../step-kind.js";

const A_PARTITION = "a partition of the cluster";

/** request: a request with explicit fields, as a test harness would send it (from node `harness`). */
export const request: StepKind<Step<"request">> = {
  describe: (step) => `request ${step.body.api} -> ${step.to}`,
  *run(step, ctx) {
    const { body } = step;
    const node = ctx.resolve(step.to);
    const { request, version, transactionalId } = buildRequest(body, ctx);
    let result: KafkaResponse | null = null;
    let disconnected: string | null = null;
    const outcomesBefore = ctx.sim.nowMs;
    const correlationId = ctx.cluster.net.request(ctx.harness.to(node), request, ctx.script.stepTimeoutMs, (r) => {
      if (r.kind === "response") result = r.body;
      else disconnected = r.reason;
    });
    yield { until: () => result !== null || disconnected !== null };
    const prefix = `${describeRequest(body)} -> ${node}`;
    const markerDetail = body.api === "WriteTxnMarkers" ? ctx.markerOutcomesOf(correlationId, outcomesBefore) : "";
    if (result === null) {
      if (disconnected !== null)
        return {
          outcome: `${prefix}: disconnected (${disconnected})`,
          errors: [Errors.NETWORK_EXCEPTION],
          problems: [],
          ...(transactionalId ? { transactionalId } : {}),
        };
      return noResponse(`${prefix}: no response`, transactionalId);
    }
    const seen = observeResponse(result, version, transactionalId);
    return { ...seen, outcome: `${prefix}: ${markerDetail || seen.outcome}` };
  },
  expect: expectResponse,
  check(step, names, check) {
    checkAddressee(step, names, check);
    for (const { field, partition } of partitionsOf(step.body))
      check.oneOf(names.partitions, partition, field, A_PARTITION);
  },
};

/** Markers and produce requests go to a broker; the others to a coordinator (or `coordinator`). */
function checkAddressee(step: Step<"request">, names: ScriptNames, check: NameCheck): void {
  const api = step.body.api;
  if (api === "WriteTxnMarkers" || api === "Produce") {
    check.oneOf(names.brokers, step.to, ["to"], `a broker for ${api}`);
    return;
  }
  check.need(
    names.coordinators.has(step.to) || step.to === SCRIPT_NODE_NAMES.coordinator,
    ["to"],
    oneOf(`a coordinator for ${api}`, [SCRIPT_NODE_NAMES.coordinator, ...names.coordinators], step.to),
  );
}

/** The partitions a request body names, each with its field. */
function partitionsOf(body: RequestBody): { field: (string | number)[]; partition: string }[] {
  switch (body.api) {
    case "WriteTxnMarkers":
      return body.markers.flatMap((m, mi) =>
        m.partitions.map((partition, pi) => ({ field: ["body", "markers", mi, "partitions", pi], partition })),
      );
    case "AddPartitionsToTxn":
      return body.partitions.map((partition, pi) => ({ field: ["body", "partitions", pi], partition }));
    case "Produce":
      return [{ field: ["body", "partition"], partition: body.partition }];
    default:
      return [];
  }
}

interface BuiltRequest {
  request: KafkaRequest;
  /** The WriteTxnMarkers version its response is decoded with (null: not WriteTxnMarkers). */
  version: number | null;
  transactionalId: string | undefined;
}

function buildRequest(body: RequestBody, ctx: StepContext): BuiltRequest {
  switch (body.api) {
    case "WriteTxnMarkers":
      return buildWriteTxnMarkers(body, ctx);
    case "InitProducerId":
      return { request: { ...body }, version: null, transactionalId: body.transactionalId };
    case "AddPartitionsToTxn":
      return {
        request: { ...body, verifyOnly: false, ghostTxn: null },
        version: null,
        transactionalId: body.transactionalId,
      };
    case "EndTxn":
      return {
        request: {
          api: "EndTxn",
          version: body.version,
          transactionalId: body.transactionalId,
          producerId: body.producerId,
          producerEpoch: body.producerEpoch,
          committed: body.result === "COMMIT",
          ghostTxn: null,
        },
        version: null,
        transactionalId: body.transactionalId,
      };
    case "Produce":
      return {
        request: { ...body, timeoutMs: 30_000, ghostTxn: null },
        version: null,
        transactionalId: body.transactionalId ?? undefined,
      };
  }
}

/** Encoded on the wire as the harness gives it; the ghosts tell the oracle which attempt each marker is for. */
function buildWriteTxnMarkers(body: Extract<RequestBody, { api: "WriteTxnMarkers" }>, ctx: StepContext): BuiltRequest {
  const markers = body.markers.map((m) => ({
    producerId: m.producerId,
    producerEpoch: m.producerEpoch,
    transactionResult: m.result === "COMMIT",
    topics: groupByTopic(m.partitions),
    coordinatorEpoch: m.coordinatorEpoch,
    transactionVersion: m.transactionVersion,
  }));
  const bytes = encodeWriteTxnMarkersRequest(
    { apiVersion: body.version, correlationId: ctx.harnessCorrelationId(), clientId: SCRIPT_NODE_NAMES.harness },
    markers,
  );
  const ghosts = body.markers.map((m: MarkerSpec) => ({
    ghostTxn: m.forTransaction ?? null,
    transactionalId: "(harness)",
    markerId: ctx.harnessMarkerId(),
    resend: 0,
  }));
  return { request: { api: "WriteTxnMarkers", bytes, ghosts }, version: body.version, transactionalId: undefined };
}

function groupByTopic(partitions: readonly string[]): { name: string; partitionIndexes: number[] }[] {
  const topics = new Map<string, number[]>();
  for (const p of partitions) {
    const dash = p.lastIndexOf("-");
    const list = topics.get(p.slice(0, dash)) ?? [];
    list.push(Number(p.slice(dash + 1)));
    topics.set(p.slice(0, dash), list);
  }
  return [...topics].map(([name, partitionIndexes]) => ({ name, partitionIndexes }));
}

function describeRequest(body: RequestBody): string {
  switch (body.api) {
    case "WriteTxnMarkers":
      return `WriteTxnMarkers v${body.version} [${body.markers.map((m) => `${m.result} producerId ${m.producerId} epoch ${m.producerEpoch} coordinatorEpoch ${m.coordinatorEpoch} TV${m.transactionVersion} ${m.partitions.join(",")}`).join("; ")}]`;
    case "EndTxn":
      return `EndTxn v${body.version} ${body.result} ${body.transactionalId} producerId ${body.producerId} epoch ${body.producerEpoch}`;
    case "InitProducerId":
      return `InitProducerId ${body.transactionalId} producerId ${body.producerId} epoch ${body.producerEpoch}`;
    case "AddPartitionsToTxn":
      return `AddPartitionsToTxn v${body.version} ${body.transactionalId} producerId ${body.producerId} epoch ${body.producerEpoch} [${body.partitions.join(", ")}]`;
    case "Produce":
      return `Produce v${body.version} ${body.partition} producerId ${body.producerId} epoch ${body.producerEpoch} seq ${body.baseSequence}`;
  }
}
