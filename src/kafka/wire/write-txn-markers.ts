import { ByteReader, ByteWriter, WireFormatError } from "./byte-buffer.js";

/** ApiKeys.WRITE_TXN_MARKERS. Versions 1-2 exist (v0 was removed in Kafka 4.0); both are flexible. */
export const WRITE_TXN_MARKERS_API_KEY = 27;
export const WRITE_TXN_MARKERS_MIN_VERSION = 1;
export const WRITE_TXN_MARKERS_MAX_VERSION = 2;

export interface WritableTxnMarkerTopic {
  name: string;
  partitionIndexes: number[];
}

/** WriteTxnMarkersRequest.WritableTxnMarker, field for field. */
export interface WritableTxnMarker {
  producerId: number;
  producerEpoch: number;
  /** false = ABORT, true = COMMIT. */
  transactionResult: boolean;
  topics: WritableTxnMarkerTopic[];
  coordinatorEpoch: number;
  /** v2+, ignorable, default 0: dropped silently when v1 is used, so the receiver reads 0. */
  transactionVersion: number;
}

export interface WritableTxnMarkerPartitionResult {
  partitionIndex: number;
  errorCode: number;
}

export interface WritableTxnMarkerResult {
  producerId: number;
  topics: { name: string; partitions: WritableTxnMarkerPartitionResult[] }[];
}

/** Request header v2 (flexible requests): ApiKey, ApiVersion, CorrelationId, ClientId, tags. */
export interface RequestHeader {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
}

function checkVersion(version: number): void {
  if (version < WRITE_TXN_MARKERS_MIN_VERSION || version > WRITE_TXN_MARKERS_MAX_VERSION) {
    throw new WireFormatError(`WriteTxnMarkers version ${version} is not in 1-2`);
  }
}

export function writeWriteTxnMarkersRequestBody(
  w: ByteWriter,
  version: number,
  markers: readonly WritableTxnMarker[],
): void {
  checkVersion(version);
  w.compactArray(markers, (m) => {
    w.int64(m.producerId).int16(m.producerEpoch).bool(m.transactionResult);
    w.compactArray(m.topics, (t) => {
      w.compactString(t.name);
      w.compactArray(t.partitionIndexes, (p) => w.int32(p));
      w.emptyTaggedFields();
    });
    w.int32(m.coordinatorEpoch);
    if (version >= 2) w.int8(m.transactionVersion);
    w.emptyTaggedFields();
  });
  w.emptyTaggedFields();
}

export function readWriteTxnMarkersRequestBody(r: ByteReader, version: number): WritableTxnMarker[] {
  checkVersion(version);
  const markers = r.compactArray(() => {
    const producerId = r.int64();
    const producerEpoch = r.int16();
    const transactionResult = r.bool();
    const topics = r.compactArray(() => {
      const name = r.compactString();
      const partitionIndexes = r.compactArray(() => r.int32());
      r.taggedFields();
      return { name, partitionIndexes };
    });
    const coordinatorEpoch = r.int32();
    const transactionVersion = version >= 2 ? r.int8() : 0;
    r.taggedFields();
    return { producerId, producerEpoch, transactionResult, topics, coordinatorEpoch, transactionVersion };
  });
  r.taggedFields();
  return markers;
}

/** The whole request as it goes on the wire (without the 4-byte size prefix). */
export function encodeWriteTxnMarkersRequest(
  header: Omit<RequestHeader, "apiKey">,
  markers: readonly WritableTxnMarker[],
): Uint8Array {
  return ByteWriter.encode((w) => {
    w.int16(WRITE_TXN_MARKERS_API_KEY)
      .int16(header.apiVersion)
      .int32(header.correlationId)
      .nullableString(header.clientId);
    w.emptyTaggedFields();
    writeWriteTxnMarkersRequestBody(w, header.apiVersion, markers);
  });
}

export function encodeWriteTxnMarkersRequestBody(version: number, markers: readonly WritableTxnMarker[]): Uint8Array {
  return ByteWriter.encode((w) => writeWriteTxnMarkersRequestBody(w, version, markers));
}

/** Read the request header; the caller decides whether it supports the version before reading on. */
export function readRequestHeader(r: ByteReader): RequestHeader {
  const apiKey = r.int16();
  const apiVersion = r.int16();
  const correlationId = r.int32();
  const clientId = r.nullableString();
  r.taggedFields();
  return { apiKey, apiVersion, correlationId, clientId };
}

export function encodeWriteTxnMarkersResponse(
  version: number,
  correlationId: number,
  results: readonly WritableTxnMarkerResult[],
): Uint8Array {
  checkVersion(version);
  return ByteWriter.encode((w) => {
    w.int32(correlationId).emptyTaggedFields();
    w.compactArray(results, (m) => {
      w.int64(m.producerId);
      w.compactArray(m.topics, (t) => {
        w.compactString(t.name);
        w.compactArray(t.partitions, (p) => {
          w.int32(p.partitionIndex).int16(p.errorCode);
          w.emptyTaggedFields();
        });
        w.emptyTaggedFields();
      });
      w.emptyTaggedFields();
    });
    w.emptyTaggedFields();
  });
}

export function decodeWriteTxnMarkersResponse(
  version: number,
  bytes: Uint8Array,
): { correlationId: number; markers: WritableTxnMarkerResult[] } {
  checkVersion(version);
  const r = new ByteReader(bytes);
  const correlationId = r.int32();
  r.taggedFields();
  const markers = r.compactArray(() => {
    const producerId = r.int64();
    const topics = r.compactArray(() => {
      const name = r.compactString();
      const partitions = r.compactArray(() => {
        const partitionIndex = r.int32();
        const errorCode = r.int16();
        r.taggedFields();
        return { partitionIndex, errorCode };
      });
      r.taggedFields();
      return { name, partitions };
    });
    r.taggedFields();
    return { producerId, topics };
  });
  r.taggedFields();
  r.expectEnd("WriteTxnMarkersResponse");
  return { correlationId, markers };
}

export function toHex(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}
