import { describe, expect, it } from "vitest";
import { parseDump, parseTxnRecord } from "../../src/confirm/history/dump-log.js";

// DumpLogSegments' output as releases print it: batches with their records, control batches with
// their marker, and __transaction_state records in 4.x's JSON and 3.9's text.

const DATA = `Dumping /x/broker-0/data/orders-0/00000000000000000000.log
Log starting offset: 0
baseOffset: 2 lastOffset: 2 count: 1 baseSequence: 0 lastSequence: 0 producerId: 1000 producerEpoch: 1 partitionLeaderEpoch: 0 isTransactional: true isControl: false deleteHorizonMs: OptionalLong.empty position: 153 CreateTime: 1796521876008 size: 75 magic: 2 compresscodec: none crc: 1281769866 isvalid: true
| offset: 2 CreateTime: 1796521876008 keySize: -1 valueSize: 7 sequence: 0 headerKeys: [] payload: p1.t2/0
baseOffset: 3 lastOffset: 3 count: 1 baseSequence: -1 lastSequence: -1 producerId: 1000 producerEpoch: 1 partitionLeaderEpoch: 0 isTransactional: true isControl: true deleteHorizonMs: OptionalLong.empty position: 228 CreateTime: 1796521878189 size: 78 magic: 2 compresscodec: none crc: 619922487 isvalid: true
| offset: 3 CreateTime: 1796521878189 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: COMMIT coordinatorEpoch: 0
`;

describe("DumpLogSegments output", () => {
  it("gives data batches with their values and control batches with their marker", () => {
    const [data, control] = parseDump(DATA);
    expect(data).toMatchObject({
      partition: "orders-0",
      baseOffset: 2,
      producerId: 1000,
      producerEpoch: 1,
      isControl: false,
      values: ["p1.t2/0"],
      marker: null,
    });
    expect(control).toMatchObject({
      partition: "orders-0",
      baseOffset: 3,
      isControl: true,
      values: [],
      marker: { result: "COMMIT", coordinatorEpoch: 0 },
    });
    expect(control?.createTime).toBe(1796521878189);
    expect(control?.lines.length).toBe(2);
  });

  it("reads a __transaction_state record as 4.x prints it (JSON, the state a number)", () => {
    const line =
      '| offset: 2 CreateTime: 1 keySize: 11 valueSize: 52 sequence: -1 headerKeys: [] key: {"type":"0","data":{"transactionalId":"txn-1"}} payload: {"version":"1","data":{"producerId":0,"producerEpoch":1,"transactionTimeoutMs":60000,"transactionStatus":2,"transactionPartitions":[{"topic":"orders","partitionIds":[0,3]}],"transactionLastUpdateTimestampMs":1,"transactionStartTimestampMs":1,"clientTransactionVersion":2}}';
    expect(parseTxnRecord(line)).toEqual({
      transactionalId: "txn-1",
      producerId: 0,
      producerEpoch: 1,
      state: "PrepareCommit",
      partitions: ["orders-0", "orders-3"],
      clientTransactionVersion: 2,
    });
  });

  it("reads a __transaction_state record as 3.9 prints it (text)", () => {
    const line =
      "| offset: 1 CreateTime: 1 keySize: 9 valueSize: 53 sequence: -1 headerKeys: [] key: transaction_metadata::transactionalId=txn-0 payload: producerId:0,producerEpoch:0,state=Ongoing,partitions=[orders-0,orders-1],txnLastUpdateTimestamp=1,txnTimeoutMs=60000";
    expect(parseTxnRecord(line)).toEqual({
      transactionalId: "txn-0",
      producerId: 0,
      producerEpoch: 0,
      state: "Ongoing",
      partitions: ["orders-0", "orders-1"],
      clientTransactionVersion: 0,
    });
    expect(parseTxnRecord("| offset: 1 payload: p0.t1/0")).toBeNull();
  });
});
