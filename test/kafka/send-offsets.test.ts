import { describe, expect, it } from "vitest";
import { ApiVersions } from "../../src/kafka/client/api-versions.js";
import { TransactionManager } from "../../src/kafka/client/transaction-manager.js";
import type { ProducerBehaviour } from "../../src/kafka/client/producer-behaviour.js";
import type { ConsumerGroupMetadata } from "../../src/kafka/client/txn-request.js";
import { Errors } from "../../src/kafka/common/errors.js";
import type { TransactionVersion } from "../../src/kafka/common/types.js";

const GROUP: ConsumerGroupMetadata = { groupId: "processors", generationId: 4, memberId: "m-1", groupInstanceId: null };
const OFFSETS = [{ partition: "input-0", offset: 12 }];

/**
 * A TransactionManager in IN_TRANSACTION at producer id 1000, epoch 3, with what it told the
 * application: a client of `tv` on a cluster that finalizes it, which reads the finalized features
 * once initTransactions completes (KafkaProducer.initTransactions).
 */
function inTransaction(tv: TransactionVersion, switches: Partial<ProducerBehaviour> = {}) {
  const heard: string[] = [];
  const apiVersions = new ApiVersions();
  apiVersions.update({ transactionVersion: tv, epoch: 0 });
  const tm = new TransactionManager(
    "proc-0",
    tv,
    { invalidProducerEpochOnProduceAbortable: true, adoptEndTxnEpoch: true, abortWithoutFlush: false, ...switches },
    {
      fatal: (api, code) => heard.push(`fatal ${api} ${code}`),
      abortable: (reason) => heard.push(`abortable ${reason}`),
    },
    apiVersions,
  );
  tm.initializeTransactions(() => tm.maybeUpdateTransactionV2Enabled({ onInitialization: true }));
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
    expect(tm.handleTxnOffsetCommitResponse(Errors.REQUEST_TIMED_OUT)).toBe("lookup-and-retry");
    expect(tm.handleTxnOffsetCommitResponse(Errors.COORDINATOR_LOAD_IN_PROGRESS)).toBe("retry");
    expect(tm.handleTxnOffsetCommitResponse(Errors.INVALID_PRODUCER_EPOCH)).toBe("done");
    expect(heard).toEqual([`fatal TxnOffsetCommit ${Errors.PRODUCER_FENCED}`]);
  });

  it("TxnOffsetCommitHandler: every other retriable error is sent again to the same coordinator, NETWORK_EXCEPTION answered included", () => {
    for (const error of [
      Errors.NOT_LEADER_OR_FOLLOWER,
      Errors.NOT_ENOUGH_REPLICAS,
      Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
      Errors.CONCURRENT_TRANSACTIONS,
      Errors.KAFKA_STORAGE_ERROR,
      Errors.FENCED_LEADER_EPOCH,
      Errors.UNKNOWN_LEADER_EPOCH,
      Errors.NETWORK_EXCEPTION,
    ]) {
      const { tm, heard } = inTransaction(2);
      expect(tm.handleTxnOffsetCommitResponse(error), String(error)).toBe("retry");
      expect([tm.state, heard]).toEqual(["IN_TRANSACTION", []]);
    }
  });

  it("TxnOffsetCommitHandler: GROUP_AUTHORIZATION_FAILED is abortable; GROUP_ID_NOT_FOUND and STALE_MEMBER_EPOCH are fatal before KIP-1319 (4.4), abortable since", () => {
    const auth = inTransaction(2);
    auth.tm.handleTxnOffsetCommitResponse(Errors.GROUP_AUTHORIZATION_FAILED);
    expect(auth.tm.state).toBe("ABORTABLE_ERROR");
    for (const error of [Errors.GROUP_ID_NOT_FOUND, Errors.STALE_MEMBER_EPOCH]) {
      const before = inTransaction(2);
      before.tm.handleTxnOffsetCommitResponse(error);
      expect(before.tm.state, String(error)).toBe("FATAL_ERROR");
      const after = inTransaction(2, { txnOffsetCommitMemberEpochErrorsAbortable: true });
      after.tm.handleTxnOffsetCommitResponse(error);
      expect(after.tm.state, String(error)).toBe("ABORTABLE_ERROR");
    }
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

  it("AddOffsetsToTxnHandler: INVALID_TXN_STATE and an unexpected error are fatal; GROUP_AUTHORIZATION_FAILED and TRANSACTION_ABORTABLE abortable, without a client epoch bump", () => {
    for (const [error, state] of [
      [Errors.INVALID_TXN_STATE, "FATAL_ERROR"],
      [Errors.UNKNOWN_SERVER_ERROR, "FATAL_ERROR"],
      [Errors.GROUP_AUTHORIZATION_FAILED, "ABORTABLE_ERROR"],
      [Errors.TRANSACTION_ABORTABLE, "ABORTABLE_ERROR"],
    ] as const) {
      const { tm } = inTransaction(1);
      tm.sendOffsetsToTransaction(OFFSETS, GROUP);
      const add = tm.nextRequest(false, 0)?.request as {
        api: "AddOffsetsToTxn";
        offsets: typeof OFFSETS;
        group: typeof GROUP;
      };
      tm.handleAddOffsetsResponse(add, error);
      expect([tm.state, tm.epochBumpRequired], String(error)).toEqual([state, false]);
    }
  });
});
