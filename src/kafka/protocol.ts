import { errorName } from "./common/errors.js";
import type {
  FetchRequest,
  FetchResponse,
  FindCoordinatorRequest,
  FindCoordinatorResponse,
  MetadataRequest,
  MetadataResponse,
} from "./fetch-protocol.js";

export type {
  FetchRequest,
  FetchResponse,
  FindCoordinatorRequest,
  FindCoordinatorResponse,
  MetadataRequest,
  MetadataResponse,
} from "./fetch-protocol.js";
import type { PartitionKey, TransactionResult, TransactionVersion } from "./common/types.js";
import type { GroupRequest, GroupResponse } from "./group-protocol.js";
import type { LeaderIdAndEpoch } from "./current-leader.js";

export type * from "./group-protocol.js";

/**
 * Requests and responses exchanged in the model. WriteTxnMarkers travels as real bytes (v1/v2); the
 * other APIs are typed records with Kafka's field names (see README, model limits).
 */
export type KafkaRequest =
  | InitProducerIdRequest
  | AddPartitionsToTxnRequest
  | EndTxnRequest
  | ProduceRequest
  | WriteTxnMarkersRequest
  | ApiVersionsRequest
  | FetchRequest
  | MetadataRequest
  | FindCoordinatorRequest
  | GroupRequest;

export type KafkaResponse =
  | InitProducerIdResponse
  | AddPartitionsToTxnResponse
  | EndTxnResponse
  | ProduceResponse
  | WriteTxnMarkersResponse
  | ApiVersionsResponse
  | FetchResponse
  | MetadataResponse
  | FindCoordinatorResponse
  | GroupResponse;

export interface InitProducerIdRequest {
  api: "InitProducerId";
  /** Null for an idempotent producer: any broker answers with a new producer id at epoch 0. */
  transactionalId: string | null;
  transactionTimeoutMs: number;
  /** KIP-360: the producer's current id and epoch when re-initialising, else -1/-1. */
  producerId: number;
  producerEpoch: number;
  /** Ghost side-car (not on the wire): the producer instance that asked, for the oracle's fatal-error check. */
  ghostClient?: string;
}

/** A transactional producer's InitProducerId (its transactional.id set): what the coordinator's state machine handles. */
export type TransactionalInitProducerIdRequest = InitProducerIdRequest & { transactionalId: string };

export interface InitProducerIdResponse {
  api: "InitProducerId";
  errorCode: number;
  producerId: number;
  producerEpoch: number;
}

/**
 * AddPartitionsToTxn. Client path (v<=3, TV0/1) or broker path (v4+): verifyOnly for KIP-890 part 1
 * verification, !verifyOnly for the TV2 implicit add (request version > 4 => clientTV 2).
 */
export interface AddPartitionsToTxnRequest {
  api: "AddPartitionsToTxn";
  version: number;
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  partitions: PartitionKey[];
  verifyOnly: boolean;
  ghostTxn: string | null;
}

export interface AddPartitionsToTxnResponse {
  api: "AddPartitionsToTxn";
  /** Top-level error (applies to all partitions) or NONE with per-partition results. */
  errorCode: number;
  results: { partition: PartitionKey; errorCode: number }[];
}

/** EndTxn: v<5 is TV0/1, v5+ is TV2 (the response carries the new producer id and epoch). */
export interface EndTxnRequest {
  api: "EndTxn";
  version: number;
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  committed: boolean;
  ghostTxn: string | null;
}

export interface EndTxnResponse {
  api: "EndTxn";
  errorCode: number;
  producerId: number;
  producerEpoch: number;
}

/** Produce of one batch to one partition. v12+ (TV2) asks the leader to add the partition implicitly. */
export interface ProduceRequest {
  api: "Produce";
  version: number;
  transactionalId: string | null;
  producerId: number;
  producerEpoch: number;
  partition: PartitionKey;
  baseSequence: number;
  values: string[];
  /** How long the leader may wait for the in-sync replicas (acks=all): the producer's request.timeout.ms. */
  timeoutMs: number;
  ghostTxn: string | null;
}

export interface ProduceResponse {
  api: "Produce";
  errorCode: number;
  baseOffset: number;
  errorMessage: string | null;
  /** KIP-951 (v10+): the leader the broker knows, filled with NOT_LEADER_OR_FOLLOWER only. */
  currentLeader: LeaderIdAndEpoch;
}

/** Ghost side-car of one marker in a WriteTxnMarkers request (not on the wire). */
export interface MarkerGhost {
  ghostTxn: string | null;
  transactionalId: string;
  /** Identity of the TxnMarkerEntry (kept across re-sends). */
  markerId: number;
  /** How many times this entry was sent before (0 = first send). */
  resend: number;
}

export interface WriteTxnMarkersRequest {
  api: "WriteTxnMarkers";
  /** Request header v2 + WriteTxnMarkersRequest body, exactly as Kafka encodes them. */
  bytes: Uint8Array;
  ghosts: MarkerGhost[];
}

export interface WriteTxnMarkersResponse {
  api: "WriteTxnMarkers";
  bytes: Uint8Array;
}

export interface ApiVersionsRequest {
  api: "ApiVersions";
}

export interface ApiVersionsResponse {
  api: "ApiVersions";
  errorCode: number;
  /** Max WriteTxnMarkers version the broker supports (the only API whose range matters here). */
  writeTxnMarkersMaxVersion: number;
}

export function labelOf(message: KafkaRequest | KafkaResponse): string {
  return message.api;
}

const ids = (producerId: number, producerEpoch: number) =>
  producerId >= 0 ? ` pid ${producerId} epoch ${producerEpoch}` : "";

/**
 * The key fields of a message as short text (the `detail` of net.send / net.reply trace events), so a
 * diagram can label an arrow without the message body. WriteTxnMarkers is bytes: its fields come
 * from the coordinator's markers.send and the leader's marker.append / marker.rejected events.
 */
export function describeMessage(message: KafkaRequest | KafkaResponse): string {
  switch (message.api) {
    case "InitProducerId":
      return "transactionalId" in message
        ? `${message.transactionalId}${ids(message.producerId, message.producerEpoch)}`
        : `${errorName(message.errorCode)}${ids(message.producerId, message.producerEpoch)}`;
    case "AddPartitionsToTxn":
      if ("transactionalId" in message)
        return `v${message.version}${ids(message.producerId, message.producerEpoch)} ${message.partitions.join(",")}${message.verifyOnly ? " verifyOnly" : ""}`;
      return [
        errorName(message.errorCode),
        ...message.results.filter((r) => r.errorCode !== 0).map((r) => `${r.partition} ${errorName(r.errorCode)}`),
      ].join(" ");
    case "EndTxn":
      return "transactionalId" in message
        ? `v${message.version} ${resultOf(message.committed)}${ids(message.producerId, message.producerEpoch)}`
        : `${errorName(message.errorCode)}${ids(message.producerId, message.producerEpoch)}`;
    case "Produce":
      return "partition" in message
        ? `v${message.version} ${message.partition}${ids(message.producerId, message.producerEpoch)} seq ${message.baseSequence} (${message.values.length} record${message.values.length === 1 ? "" : "s"})`
        : `${errorName(message.errorCode)}${message.errorCode === 0 ? ` offset ${message.baseOffset}` : ""}`;
    case "WriteTxnMarkers":
      return "ghosts" in message
        ? message.ghosts.map((g) => `marker #${g.markerId} copy ${g.resend + 1}`).join(", ")
        : "";
    case "ApiVersions":
      return "writeTxnMarkersMaxVersion" in message
        ? `${errorName(message.errorCode)} WriteTxnMarkers max v${message.writeTxnMarkersMaxVersion}`
        : "";
    case "Fetch":
      return "replicaId" in message
        ? `${message.replicaId === null ? "" : `replica ${message.replicaId} `}${message.partitions.map((p) => `${p.partition}@${p.fetchOffset}`).join(",")} ${message.isolation}`
        : message.partitions
            .map(
              (p) =>
                `${p.partition} ${errorName(p.errorCode)} hw ${p.highWatermark} lso ${p.lastStableOffset} ${p.batches.length} batches${p.divergingEpoch ? ` diverging epoch ${p.divergingEpoch.epoch} end ${p.divergingEpoch.endOffset}` : ""}`,
            )
            .join("; ");
    case "Metadata":
      return "imageOffset" in message ? `image ${message.imageOffset}` : "";
    case "FindCoordinator":
      return "key" in message
        ? `${message.keyType === "GROUP" ? "group" : "transaction"} ${message.key}`
        : `${errorName(message.errorCode)} ${message.nodeId ?? ""}`;
    default:
      return describeGroupMessage(message);
  }
}

/** The group APIs' key fields (issue 17). */
function describeGroupMessage(message: GroupRequest | GroupResponse): string {
  if ("errorCode" in message) {
    const extra =
      message.api === "JoinGroup"
        ? ` ${message.memberId} generation ${message.generationId}`
        : message.api === "SyncGroup"
          ? ` ${message.assignment.join(",")}`
          : message.api === "OffsetFetch"
            ? ` ${message.partitions.map((p) => `${p.partition}@${p.offset}${p.errorCode ? ` ${errorName(p.errorCode)}` : ""}`).join(",")}`
            : "";
    return `${errorName(message.errorCode)}${extra}`;
  }
  const member = "memberId" in message ? ` ${message.memberId || "(new)"}` : "";
  const generation = "generationId" in message ? ` generation ${message.generationId}` : "";
  const offsets = "offsets" in message ? ` ${message.offsets.map((o) => `${o.partition}@${o.offset}`).join(",")}` : "";
  const pid = "producerId" in message ? ids(message.producerId, message.producerEpoch) : "";
  return `${message.groupId}${member}${generation}${pid}${offsets}`;
}

export function resultOf(committed: boolean): TransactionResult {
  return committed ? "COMMIT" : "ABORT";
}

export function endTxnVersionFor(tv: TransactionVersion): number {
  return tv >= 2 ? 5 : 4;
}

export function produceVersionFor(tv: TransactionVersion): number {
  return tv >= 2 ? 12 : 11;
}
