import { ByteReader } from "../../kafka/wire/byte-buffer.js";
import {
  decodeWriteTxnMarkersResponse,
  readRequestHeader,
  readWriteTxnMarkersRequestBody,
  WRITE_TXN_MARKERS_API_KEY,
  type WritableTxnMarker,
} from "../../kafka/wire/write-txn-markers.js";

/** Kafka's API keys the proxy names (ApiKeys). */
export const API_NAMES: Readonly<Record<number, string>> = {
  0: "Produce",
  1: "Fetch",
  2: "ListOffsets",
  3: "Metadata",
  10: "FindCoordinator",
  18: "ApiVersions",
  22: "InitProducerId",
  24: "AddPartitionsToTxn",
  25: "AddOffsetsToTxn",
  26: "EndTxn",
  27: "WriteTxnMarkers",
  28: "TxnOffsetCommit",
  61: "DescribeProducers",
  65: "DescribeTransactions",
};

export const PRODUCE_API_KEY = 0;
export const END_TXN_API_KEY = 26;

export function apiName(apiKey: number): string {
  return API_NAMES[apiKey] ?? `api ${apiKey}`;
}

/** What the proxy reads of a request: the header's fixed fields, and the producer ids it is about. */
export interface RequestInfo {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
  /** WriteTxnMarkers: its markers (eosfuzz's own codec). */
  markers: WritableTxnMarker[] | null;
  /** The producer ids the request is about (WriteTxnMarkers, EndTxn, Produce); empty when unknown. */
  producerIds: number[];
  /** Produce: topic-partition names; WriteTxnMarkers: the markers' partitions. */
  partitions: string[];
}

/**
 * Read a request's header and, for the APIs whose producer id a fault can match, its body. The fixed
 * header fields (api_key, api_version, correlation_id) are the same in every header version; the
 * client id is a nullable string in v1 and v2. A body the proxy cannot read leaves the producer ids
 * empty: the request still passes.
 */
export function readRequestInfo(frame: Uint8Array): RequestInfo {
  const view = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength);
  const info: RequestInfo = {
    apiKey: view.readInt16BE(0),
    apiVersion: view.readInt16BE(2),
    correlationId: view.readInt32BE(4),
    clientId: null,
    markers: null,
    producerIds: [],
    partitions: [],
  };
  try {
    const clientIdLength = view.readInt16BE(8);
    info.clientId = clientIdLength < 0 ? null : view.toString("utf8", 10, 10 + clientIdLength);
    if (info.apiKey === WRITE_TXN_MARKERS_API_KEY) {
      const r = new ByteReader(frame);
      readRequestHeader(r);
      info.markers = readWriteTxnMarkersRequestBody(r, info.apiVersion);
      info.producerIds = info.markers.map((m) => m.producerId);
      info.partitions = info.markers.flatMap((m) =>
        m.topics.flatMap((t) => t.partitionIndexes.map((p) => `${t.name}-${p}`)),
      );
    } else if (info.apiKey === END_TXN_API_KEY && info.apiVersion >= 3) {
      const at = flexibleBodyStart(view, clientIdLength);
      const [, afterId] = compactString(view, at);
      info.producerIds = [Number(view.readBigInt64BE(afterId))];
    } else if (info.apiKey === PRODUCE_API_KEY && info.apiVersion >= 9) {
      readProduce(view, flexibleBodyStart(view, clientIdLength), info);
    }
  } catch {
    // An unreadable body: the request passes unmatched by producer id.
  }
  return info;
}

/** Header v2: after the client id come tagged fields (a count, here always read as a varint). */
function flexibleBodyStart(view: Buffer, clientIdLength: number): number {
  let at = 10 + Math.max(0, clientIdLength);
  const [count, next] = uvarint(view, at);
  at = next;
  for (let i = 0; i < count; i++) {
    const [, afterTag] = uvarint(view, at);
    const [size, afterSize] = uvarint(view, afterTag);
    at = afterSize + size;
  }
  return at;
}

function uvarint(view: Buffer, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  let i = at;
  while (true) {
    const b = view.readUInt8(i++);
    value += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return [value, i];
    shift += 7;
    if (shift > 28) throw new Error("varint too long");
  }
}

/** A compact (nullable) string: length + 1 as an unsigned varint, 0 for null. */
function compactString(view: Buffer, at: number): [string | null, number] {
  const [n, next] = uvarint(view, at);
  if (n === 0) return [null, next];
  return [view.toString("utf8", next, next + n - 1), next + n - 1];
}

/**
 * ProduceRequest v9+ (flexible; topics by name, from v13 by topic id): transactional id, acks,
 * timeout, then per topic and partition a record set, whose first batch header holds the producer id
 * (offset 43).
 */
function readProduce(view: Buffer, start: number, info: RequestInfo): void {
  let [, at] = compactString(view, start);
  at += 2 + 4;
  const [topics, afterTopics] = uvarint(view, at);
  at = afterTopics;
  for (let t = 0; t < topics - 1; t++) {
    let name: string | null;
    if (info.apiVersion >= 13) {
      name = view.toString("hex", at, at + 16);
      at += 16;
    } else [name, at] = compactString(view, at);
    const [partitions, afterPartitions] = uvarint(view, at);
    at = afterPartitions;
    for (let p = 0; p < partitions - 1; p++) {
      const index = view.readInt32BE(at);
      at += 4;
      const [size, afterSize] = uvarint(view, at);
      at = afterSize;
      if (size > 0 && size - 1 >= 61) {
        const pid = Number(view.readBigInt64BE(at + 43));
        if (!info.producerIds.includes(pid)) info.producerIds.push(pid);
      }
      info.partitions.push(`${name}-${index}`);
      at += Math.max(0, size - 1);
      at = skipTags(view, at);
    }
    at = skipTags(view, at);
  }
}

function skipTags(view: Buffer, at: number): number {
  let [count, next] = uvarint(view, at);
  while (count-- > 0) {
    const [, afterTag] = uvarint(view, next);
    const [size, afterSize] = uvarint(view, afterTag);
    next = afterSize + size;
  }
  return next;
}

/** A WriteTxnMarkers response: each partition's error code (eosfuzz's own codec). */
export function readMarkerResponse(
  apiVersion: number,
  frame: Uint8Array,
): { partition: string; producerId: number; errorCode: number }[] {
  const { markers } = decodeWriteTxnMarkersResponse(apiVersion, frame);
  return markers.flatMap((m) =>
    m.topics.flatMap((t) =>
      t.partitions.map((p) => ({
        partition: `${t.name}-${p.partitionIndex}`,
        producerId: m.producerId,
        errorCode: p.errorCode,
      })),
    ),
  );
}

/** The correlation id of a response (its first field in every response header version). */
export function responseCorrelationId(frame: Uint8Array): number {
  return Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength).readInt32BE(0);
}
