import { describe, expect, it } from "vitest";
import { ByteReader, WireFormatError } from "../../src/kafka/wire/byte-buffer.js";
import {
  decodeWriteTxnMarkersResponse,
  encodeWriteTxnMarkersRequest,
  encodeWriteTxnMarkersRequestBody,
  encodeWriteTxnMarkersResponse,
  readRequestHeader,
  readWriteTxnMarkersRequestBody,
  toHex,
  type WritableTxnMarker,
} from "../../src/kafka/wire/write-txn-markers.js";

// KAFKA.md section 8: producerId 4001, epoch 3, COMMIT, "orders" [0, 2], coordinatorEpoch 7, TV 2.
const marker: WritableTxnMarker = {
  producerId: 4001,
  producerEpoch: 3,
  transactionResult: true,
  topics: [{ name: "orders", partitionIndexes: [0, 2] }],
  coordinatorEpoch: 7,
  transactionVersion: 2,
};
const GOLDEN_V1 = "020000000000000fa100030102076f726465727303000000000000000200000000070000";
const GOLDEN_V2 = "020000000000000fa100030102076f72646572730300000000000000020000000007020000";

describe("WriteTxnMarkers wire format", () => {
  it("encodes the v1 and v2 request bodies byte for byte as Kafka does", () => {
    expect(toHex(encodeWriteTxnMarkersRequestBody(1, [marker]))).toBe(GOLDEN_V1);
    expect(toHex(encodeWriteTxnMarkersRequestBody(2, [marker]))).toBe(GOLDEN_V2);
  });

  it("drops the ignorable TransactionVersion in v1: the receiver reads 0", () => {
    const bytes = encodeWriteTxnMarkersRequest({ apiVersion: 1, correlationId: 9, clientId: "tc" }, [marker]);
    const r = new ByteReader(bytes);
    expect(readRequestHeader(r)).toEqual({ apiKey: 27, apiVersion: 1, correlationId: 9, clientId: "tc" });
    const [decoded] = readWriteTxnMarkersRequestBody(r, 1);
    expect(decoded).toEqual({ ...marker, transactionVersion: 0 });
    expect(r.remaining).toBe(0);
  });

  it("round-trips v2 with TransactionVersion, several markers and topics", () => {
    const markers: WritableTxnMarker[] = [
      marker,
      { producerId: 2 ** 40 + 5, producerEpoch: 32767, transactionResult: false, topics: [{ name: "a", partitionIndexes: [] }, { name: "b.c_d", partitionIndexes: [63] }], coordinatorEpoch: 0, transactionVersion: 0 },
    ];
    const r = new ByteReader(encodeWriteTxnMarkersRequest({ apiVersion: 2, correlationId: 1, clientId: null }, markers));
    expect(readRequestHeader(r).clientId).toBeNull();
    expect(readWriteTxnMarkersRequestBody(r, 2)).toEqual(markers);
  });

  it("cannot read v2 bytes as v1: a v1-only reader runs out of bytes", () => {
    const body = encodeWriteTxnMarkersRequestBody(2, [marker]);
    expect(() => {
      const r = new ByteReader(body);
      readWriteTxnMarkersRequestBody(r, 1);
      r.expectEnd("v1 request");
    }).toThrow(WireFormatError);
  });

  it("rejects version 0 and 3", () => {
    expect(() => encodeWriteTxnMarkersRequestBody(0, [marker])).toThrow(WireFormatError);
    expect(() => encodeWriteTxnMarkersRequestBody(3, [marker])).toThrow(WireFormatError);
  });

  it("throws WireFormatError on every truncation, never garbage", () => {
    const full = encodeWriteTxnMarkersRequestBody(2, [marker]);
    for (let cut = 0; cut < full.length; cut++) {
      expect(() => {
        const r = new ByteReader(full.subarray(0, cut));
        readWriteTxnMarkersRequestBody(r, 2);
        r.expectEnd("request");
      }).toThrow(WireFormatError);
    }
  });

  it("round-trips responses with per-partition error codes", () => {
    const results = [{ producerId: 4001, topics: [{ name: "orders", partitions: [{ partitionIndex: 0, errorCode: 0 }, { partitionIndex: 2, errorCode: 47 }] }] }];
    const decoded = decodeWriteTxnMarkersResponse(2, encodeWriteTxnMarkersResponse(2, 5, results));
    expect(decoded).toEqual({ correlationId: 5, markers: results });
  });
});
