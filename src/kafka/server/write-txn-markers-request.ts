import { Errors } from "../common/errors.js";
import type { WriteTxnMarkersRequest } from "../protocol.js";
import { ByteReader, WireFormatError } from "../wire/byte-buffer.js";
import {
  encodeWriteTxnMarkersResponse,
  readRequestHeader,
  readWriteTxnMarkersRequestBody,
  WRITE_TXN_MARKERS_API_KEY,
  type WritableTxnMarker,
  type WritableTxnMarkerResult,
} from "../wire/write-txn-markers.js";
import type { BrokerProcess, Inbound } from "./broker-process.js";
import { appendTxnMarker } from "./txn-marker-append.js";

/**
 * KafkaApis.handleWriteTxnMarkersRequest: the request's bytes as Kafka reads them (a version this
 * release does not enable closes the connection), then every marker at every partition it names;
 * the response goes once each partition has its answer.
 */
export function handleWriteTxnMarkersRequest(
  process: BrokerProcess,
  request: Inbound,
  body: WriteTxnMarkersRequest,
): void {
  const flags = process.release.flags;
  let markers: WritableTxnMarker[];
  let version: number;
  let correlationId: number; // the header's id, echoed in the response
  try {
    const reader = new ByteReader(body.bytes);
    const header = readRequestHeader(reader);
    version = header.apiVersion;
    correlationId = header.correlationId;
    if (header.apiKey !== WRITE_TXN_MARKERS_API_KEY || version < 1 || version > flags.maxWriteTxnMarkersVersion) {
      // SocketServer.parseRequestHeader: InvalidRequestException for a version that is not enabled;
      // processChannelException closes the connection without a response.
      return refuseMarkers(
        process,
        request,
        body,
        version,
        `WriteTxnMarkers v${version} is not supported (max v${flags.maxWriteTxnMarkersVersion})`,
      );
    }
    markers = readWriteTxnMarkersRequestBody(reader, version);
    reader.expectEnd("WriteTxnMarkersRequest");
  } catch (e) {
    if (e instanceof WireFormatError)
      return refuseMarkers(process, request, body, -1, `unparseable request: ${e.message}`);
    throw e;
  }
  if (markers.length !== body.ghosts.length) throw new Error("ghost side-car does not match the markers");

  const results: WritableTxnMarkerResult[] = markers.map((marker) => ({
    producerId: marker.producerId,
    topics: marker.topics.map((topic) => ({
      name: topic.name,
      partitions: topic.partitionIndexes.map((index) => ({ partitionIndex: index, errorCode: Errors.NONE })),
    })),
  }));
  let remaining = results.reduce((n, r) => n + r.topics.reduce((m, t) => m + t.partitions.length, 0), 0);
  const respond = () =>
    request.respond({
      api: "WriteTxnMarkers",
      bytes: encodeWriteTxnMarkersResponse(version, correlationId, results),
    });
  if (remaining === 0) return respond();
  markers.forEach((marker, i) => {
    const ghost = body.ghosts[i] as WriteTxnMarkersRequest["ghosts"][number];
    marker.topics.forEach((topic, ti) => {
      topic.partitionIndexes.forEach((index, pi) => {
        const slot = (results[i] as WritableTxnMarkerResult).topics[ti]?.partitions[pi] as { errorCode: number };
        const partition = `${topic.name}-${index}`;
        appendTxnMarker(
          process,
          { partition, marker, ghost, version, correlationId: request.correlationId },
          (errorCode) => {
            slot.errorCode = errorCode;
            remaining--;
            if (remaining === 0) respond();
          },
        );
      });
    });
  });
}

/** A request Kafka cannot read: the trace and the ghost hear of it, and the connection closes unanswered. */
function refuseMarkers(
  process: BrokerProcess,
  request: Inbound,
  body: WriteTxnMarkersRequest,
  version: number,
  reason: string,
): void {
  process.ctx.sim.emit(process.brokerId, "markers.refused", { version, reason });
  process.ctx.ghost.markerRequestRefused({
    broker: process.brokerId,
    brokerRelease: process.release.name,
    version,
    reason,
    markerIds: body.ghosts.map((g) => g.markerId),
    atMs: process.ctx.sim.nowMs,
  });
  request.closeConnection(reason);
}
