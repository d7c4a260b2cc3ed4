import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ByteReader, ByteWriter, WireFormatError } from "../../src/kafka/wire/byte-buffer.js";
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
      {
        producerId: 2 ** 40 + 5,
        producerEpoch: 32767,
        transactionResult: false,
        topics: [
          { name: "a", partitionIndexes: [] },
          { name: "b.c_d", partitionIndexes: [63] },
        ],
        coordinatorEpoch: 0,
        transactionVersion: 0,
      },
    ];
    const r = new ByteReader(
      encodeWriteTxnMarkersRequest({ apiVersion: 2, correlationId: 1, clientId: null }, markers),
    );
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
    const results = [
      {
        producerId: 4001,
        topics: [
          {
            name: "orders",
            partitions: [
              { partitionIndex: 0, errorCode: 0 },
              { partitionIndex: 2, errorCode: 47 },
            ],
          },
        ],
      },
    ];
    const decoded = decodeWriteTxnMarkersResponse(2, encodeWriteTxnMarkersResponse(2, 5, results));
    expect(decoded).toEqual({ correlationId: 5, markers: results });
  });
});

describe("Kafka primitives", () => {
  /** The reference: DataView's big-endian accessors and the platform's strict UTF-8 codec. */
  const reference = (v: { i8: number; i16: number; i32: number; i64: number; s: string }): Uint8Array => {
    const text = new TextEncoder().encode(v.s);
    const out = new Uint8Array(1 + 2 + 4 + 8 + 1 + text.length);
    const view = new DataView(out.buffer);
    view.setInt8(0, v.i8);
    view.setInt16(1, v.i16);
    view.setInt32(3, v.i32);
    const hi = Math.floor(v.i64 / 2 ** 32);
    view.setInt32(7, hi);
    view.setUint32(11, v.i64 - hi * 2 ** 32);
    out[15] = text.length + 1; // uvarint of a short length
    out.set(text, 16);
    return out;
  };

  it("write and read like DataView and TextEncoder/TextDecoder, signs and non-ASCII text included", () => {
    fc.assert(
      fc.property(
        fc.record({
          i8: fc.integer({ min: -128, max: 127 }),
          i16: fc.integer({ min: -32768, max: 32767 }),
          i32: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
          i64: fc.maxSafeInteger(),
          s: fc.string({ unit: "grapheme", maxLength: 20 }).filter((s) => new TextEncoder().encode(s).length < 127),
        }),
        (v) => {
          const bytes = new ByteWriter().int8(v.i8).int16(v.i16).int32(v.i32).int64(v.i64).compactString(v.s).bytes();
          expect(toHex(bytes)).toBe(toHex(reference(v)));
          const r = new ByteReader(bytes);
          expect([r.int8(), r.int16(), r.int32(), r.int64(), r.compactString()]).toEqual([
            v.i8,
            v.i16,
            v.i32,
            v.i64,
            v.s,
          ]);
          r.expectEnd("primitives");
        },
      ),
      { seed: 11, numRuns: 300 },
    );
  });

  it("rejects malformed UTF-8 in a string", () => {
    const r = new ByteReader(Uint8Array.of(3, 0x61, 0xc3));
    expect(() => r.compactString()).toThrow(WireFormatError);
  });

  it("gives every encoded message its own bytes, also after a failed encoding and for big messages", () => {
    const first = encodeWriteTxnMarkersRequestBody(1, [marker]);
    const firstHex = toHex(first);
    expect(() => encodeWriteTxnMarkersRequestBody(0, [marker])).toThrow(WireFormatError);
    const big = Array.from({ length: 800 }, (_, i) => ({ ...marker, producerId: i }));
    const many = [
      encodeWriteTxnMarkersRequestBody(2, big),
      ...Array.from({ length: 2_000 }, () => encodeWriteTxnMarkersRequestBody(2, [marker])),
    ];
    expect(toHex(first)).toBe(firstHex);
    expect(many.slice(1).every((m) => toHex(m) === GOLDEN_V2)).toBe(true);
    expect(readWriteTxnMarkersRequestBody(new ByteReader(many[0] as Uint8Array), 2)).toEqual(big);
  });
});
