import { describe, expect, it } from "vitest";
import { type ConsumerGroupMetadata, TransactionManager } from "../../src/kafka/client/transaction-manager.js";
import { Errors } from "../../src/kafka/common/errors.js";
import type { TransactionVersion } from "../../src/kafka/common/types.js";

const GROUP: ConsumerGroupMetadata = { groupId: "processors", generationId: 4, memberId: "m-1", groupInstanceId: null };
const OFFSETS = [{ partition: "input-0", offset: 12 }];

/** A TransactionManager in IN_TRANSACTION at producer id 1000, epoch 3, with what it told the application. */
function inTransaction(tv: TransactionVersion) {
  const heard: string[] = [];
  const tm = new TransactionManager(
    "proc-0",
    tv,
    { invalidProducerEpochOnProduceAbortable: true, adoptEndTxnEpoch: true, abortWithoutFlush: false },
    {
      fatal: (api, code) => heard.push(`fatal ${api} ${code}`),
      abortable: (reason) => heard.push(`abortable ${reason}`),
    },
  );
  tm.initializeTransactions(() => {});
  tm.nextRequest(false, 0);
  tm.handleInitProducerIdResponse(Errors.NONE, 1000, 3);
  tm.beginTransaction();
  return { tm, heard };
}

describe("sendOffsetsToTransaction (TransactionManager, KIP-98 / KIP-447 / KIP-890)", () => {
  it("TV0/1: AddOffsetsToTxn first; its success queues TxnOffsetCommit with the group metadata, before EndTxn", () => {
    const { tm } = inTransaction(1);
    expect(tm.sendOffsetsToTransaction(OFFSETS, GROUP)).toBe(true);
    tm.beginCommit(() => {});
    const add = tm.nextRequest(false, 0)?.request;
    expect(add).toEqual({ api: "AddOffsetsToTxn", offsets: OFFSETS, group: GROUP });
    expect(tm.handleAddOffsetsResponse(add as Extract<typeof add, { api: "AddOffsetsToTxn" }>, Errors.NONE)).toBe(
      "done",
    );
    expect(tm.nextRequest(false, 0)?.request).toEqual({ api: "TxnOffsetCommit", offsets: OFFSETS, group: GROUP });
    expect(tm.handleTxnOffsetCommitResponse(Errors.NONE)).toBe("done");
    expect(tm.nextRequest(false, 0)?.request).toEqual({ api: "EndTxn", commit: true, transactionVersion: 1 });
  });

  it("TV2: no AddOffsetsToTxn (the group coordinator's verification adds the partition); the transaction needs an EndTxn", () => {
    const { tm } = inTransaction(2);
    tm.sendOffsetsToTransaction(OFFSETS, GROUP);
    expect(tm.transactionStarted).toBe(true);
    tm.beginCommit(() => {});
    expect(tm.nextRequest(false, 0)?.request).toEqual({ api: "TxnOffsetCommit", offsets: OFFSETS, group: GROUP });
    tm.handleTxnOffsetCommitResponse(Errors.NONE);
    expect(tm.nextRequest(false, 0)?.request).toEqual({ api: "EndTxn", commit: true, transactionVersion: 2 });
  });

  it("outside a transaction nothing is sent", () => {
    const { tm } = inTransaction(2);
    tm.beginCommit(() => {});
    expect(tm.sendOffsetsToTransaction(OFFSETS, GROUP)).toBe(false);
  });

  it("TxnOffsetCommitHandler: a stale generation or member (KIP-447's CommitFailedException) and a fenced instance are abortable", () => {
    for (const error of [Errors.ILLEGAL_GENERATION, Errors.UNKNOWN_MEMBER_ID, Errors.FENCED_INSTANCE_ID]) {
      const { tm, heard } = inTransaction(2);
      tm.sendOffsetsToTransaction(OFFSETS, GROUP);
      tm.nextRequest(false, 0);
      expect(tm.handleTxnOffsetCommitResponse(error)).toBe("done");
      expect(tm.state).toBe("ABORTABLE_ERROR");
      expect(heard[0]).toMatch(/^abortable TxnOffsetCommit/);
    }
  });

  it("TxnOffsetCommitHandler: a moved or unavailable group coordinator is looked up again; loading is retried; a fenced producer is fatal", () => {
    const { tm, heard } = inTransaction(2);
    expect(tm.handleTxnOffsetCommitResponse(Errors.NOT_COORDINATOR)).toBe("lookup-and-retry");
    expect(tm.handleTxnOffsetCommitResponse(Errors.COORDINATOR_NOT_AVAILABLE)).toBe("lookup-and-retry");
    expect(tm.handleTxnOffsetCommitResponse(Errors.COORDINATOR_LOAD_IN_PROGRESS)).toBe("retry");
    expect(tm.handleTxnOffsetCommitResponse(Errors.INVALID_PRODUCER_EPOCH)).toBe("done");
    expect(heard).toEqual([`fatal TxnOffsetCommit ${Errors.PRODUCER_FENCED}`]);
  });

  it("AddOffsetsToTxnHandler: a fenced producer is fatal, CONCURRENT_TRANSACTIONS retried", () => {
    const { tm, heard } = inTransaction(1);
    tm.sendOffsetsToTransaction(OFFSETS, GROUP);
    const add = tm.nextRequest(false, 0)?.request as {
      api: "AddOffsetsToTxn";
      offsets: typeof OFFSETS;
      group: typeof GROUP;
    };
    expect(tm.handleAddOffsetsResponse(add, Errors.CONCURRENT_TRANSACTIONS)).toBe("retry");
    expect(tm.handleAddOffsetsResponse(add, Errors.PRODUCER_FENCED)).toBe("done");
    expect(heard).toEqual([`fatal AddOffsetsToTxn ${Errors.PRODUCER_FENCED}`]);
  });
});
