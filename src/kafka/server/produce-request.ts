import { produceErrorForVerification } from "../broker/add-partitions-to-txn-manager.js";
import type { LogBatch } from "../broker/log-batch.js";
import { SENTINEL_GUARD } from "../broker/producer-state-entry.js";
import { Errors } from "../common/errors.js";
import { NO_CURRENT_LEADER } from "../current-leader.js";
import type { ProduceRequest, ProduceResponse } from "../protocol.js";
import type { BrokerProcess, Inbound } from "./broker-process.js";

/**
 * KafkaApis.handleProduceRequest: the leader's checks, then (transactional, KIP-890) the
 * coordinator's verification, then the append and the wait for the ISR.
 */
export function handleProduceRequest(process: BrokerProcess, request: Inbound, body: ProduceRequest): void {
  const partition = process.replicas.partitions.get(body.partition);
  if (!partition?.isLeader) {
    const known = process.image().partitions.has(body.partition);
    return sendResponse(
      process,
      request,
      body,
      produceError(known ? Errors.NOT_LEADER_OR_FOLLOWER : Errors.UNKNOWN_TOPIC_OR_PARTITION, "not the leader"),
    );
  }
  const log = partition.log;
  const transactional = body.transactionalId !== null;
  if (transactional && process.release.flags.transactionPartitionVerification) {
    const stale = log.staleEpochBeforeVerification(body.producerId, body.producerEpoch);
    if (stale !== null) {
      process.ctx.sim.emit(process.brokerId, "produce.rejected", {
        partition: body.partition,
        pid: body.producerId,
        epoch: body.producerEpoch,
        seq: body.baseSequence,
        error: Errors.INVALID_PRODUCER_EPOCH,
      });
      return sendResponse(
        process,
        request,
        body,
        produceError(Errors.INVALID_PRODUCER_EPOCH, `before verification: ${stale}`),
      );
    }
    const supportsEpochBump = body.version >= 12;
    const guard = log.maybeStartTransactionVerification(
      body.producerId,
      body.baseSequence,
      body.producerEpoch,
      supportsEpochBump,
    );
    if (guard !== SENTINEL_GUARD) {
      verifyProduce(process, request, body, guard, supportsEpochBump);
      return;
    }
  }
  appendProduce(process, request, body, SENTINEL_GUARD);
}

/**
 * appendRecordsWithTransactionVerification: ask the coordinator whether (TV0/1) or to add (TV2)
 * the partition; a KAFKA-18654 leader asks again after add.partitions.to.txn.retry.backoff.ms while
 * the coordinator answers CONCURRENT_TRANSACTIONS (the previous transaction's markers still being
 * written), until add.partitions.to.txn.retry.backoff.max.ms (at most request.timeout.ms) has passed
 * since the first ask (maybeRetryOnConcurrentTransactions); then the producer gets the answer.
 */
function verifyProduce(
  process: BrokerProcess,
  request: Inbound,
  body: ProduceRequest,
  guard: number,
  supportsEpochBump: boolean,
): void {
  const flags = process.release.flags;
  const sim = process.ctx.sim;
  const addPartition = supportsEpochBump && flags.supportsTransactionVersion2;
  const config = process.ctx.config;
  const retryTimeoutMs = Math.min(config.addPartitionsToTxnRetryBackoffMaxMs, config.requestTimeoutMs);
  const startedAtMs = sim.nowMs;
  const ask = (): void =>
    process.verifier.verify(
      {
        api: "AddPartitionsToTxn",
        version: addPartition ? 5 : 4,
        transactionalId: body.transactionalId as string,
        producerId: body.producerId,
        producerEpoch: body.producerEpoch,
        partitions: [body.partition],
        verifyOnly: !addPartition,
        ghostTxn: body.ghostTxn,
      },
      (errorCode) => {
        const retry =
          errorCode === Errors.CONCURRENT_TRANSACTIONS &&
          flags.addPartitionsRetryOnServer &&
          sim.nowMs - startedAtMs < retryTimeoutMs;
        if (retry) {
          sim.schedule(config.addPartitionsToTxnRetryBackoffMs, () => {
            if (!process.stopped) ask();
          });
          return;
        }
        const mapped = produceErrorForVerification(errorCode, body.version);
        if (mapped !== Errors.NONE) {
          sim.emit(process.brokerId, "produce.verify-failed", {
            partition: body.partition,
            pid: body.producerId,
            epoch: body.producerEpoch,
            error: mapped,
          });
          return sendResponse(
            process,
            request,
            body,
            produceError(mapped, `verification: coordinator answered ${errorCode}`),
          );
        }
        appendProduce(process, request, body, guard);
      },
    );
  ask();
}

/** appendRecords with acks=all: the log's checks, then the wait for the ISR (DelayedProduce). */
function appendProduce(process: BrokerProcess, request: Inbound, body: ProduceRequest, guard: number): void {
  const { ctx, brokerId } = process;
  process.replicas.appendToLeader(
    body.partition,
    body.timeoutMs,
    (log) => {
      const verifiedFrom = log.verificationStates.get(body.producerId)?.lowestSequence;
      const result = log.appendData({
        producerId: body.producerId,
        producerEpoch: body.producerEpoch,
        baseSequence: body.baseSequence,
        isTransactional: body.transactionalId !== null,
        values: body.values,
        ghostTxn: body.ghostTxn,
        verificationGuard: guard,
      });
      if (result.kind === "error") {
        ctx.sim.emit(brokerId, "produce.rejected", {
          partition: body.partition,
          pid: body.producerId,
          epoch: body.producerEpoch,
          seq: body.baseSequence,
          error: result.errorCode,
        });
        ctx.ghost.produceRefused?.({
          broker: brokerId,
          partition: body.partition,
          producerId: body.producerId,
          producerEpoch: body.producerEpoch,
          baseSequence: body.baseSequence,
          ghostTxn: body.ghostTxn,
          errorCode: result.errorCode,
          reason: result.reason,
          ...heldAt(log.batches, body),
          atMs: ctx.sim.nowMs,
        });
        return { waitForOffset: null, value: produceError(result.errorCode, result.reason) };
      }
      if (result.kind === "duplicate") {
        ctx.sim.emit(brokerId, "produce.duplicate", {
          partition: body.partition,
          pid: body.producerId,
          seq: body.baseSequence,
          offset: result.firstOffset,
        });
        return { waitForOffset: result.lastOffset + 1, value: produceOk(result.firstOffset) };
      }
      const batch = result.batch;
      noteAppended(process, request, body, batch, verifiedFrom);
      return { waitForOffset: batch.lastOffset + 1, value: produceOk(batch.baseOffset) };
    },
    (errorCode, value) => {
      if (errorCode !== Errors.NONE || value === null)
        return sendResponse(process, request, body, produceError(errorCode, "append failed"));
      sendResponse(process, request, body, value);
    },
  );
}

/** The trace's record of a written batch, and the ghost's (with the verification floor the leader held then). */
function noteAppended(
  process: BrokerProcess,
  request: Inbound,
  body: ProduceRequest,
  batch: LogBatch,
  verifiedFrom: number | undefined,
): void {
  const { ctx, brokerId } = process;
  ctx.sim.emit(brokerId, "produce.append", {
    partition: body.partition,
    pid: body.producerId,
    epoch: body.producerEpoch,
    seq: body.baseSequence,
    offset: batch.baseOffset,
    txn: body.ghostTxn,
    corr: request.correlationId,
  });
  ctx.ghost.batchAppended({
    broker: brokerId,
    partition: body.partition,
    batch,
    ...(verifiedFrom !== undefined ? { verifiedFromSequence: verifiedFrom } : {}),
    atMs: ctx.sim.nowMs,
  });
}

/**
 * Ghost: where the log already holds the refused batch itself (an earlier copy of the same
 * transaction attempt's batch, written and not truncated), for the stuck-sequence check.
 */
function heldAt(batches: readonly LogBatch[], body: ProduceRequest): { heldAtOffset?: number } {
  if (body.ghostTxn === null) return {};
  const held = batches.find(
    (b) =>
      b.control === null &&
      b.ghostTxn === body.ghostTxn &&
      b.producerId === body.producerId &&
      b.producerEpoch === body.producerEpoch &&
      b.baseSequence === body.baseSequence,
  );
  return held ? { heldAtOffset: held.baseOffset } : {};
}

/**
 * KafkaApis.handleProduceRequest's sendResponseCallback: from v10 (KIP-951), a partition answered
 * NOT_LEADER_OR_FOLLOWER carries the leader this broker knows now (getCurrentLeader), however the
 * error arose (not the leader on arrival, or leadership lost while the append waited).
 */
function sendResponse(process: BrokerProcess, request: Inbound, body: ProduceRequest, response: ProduceResponse): void {
  if (body.version >= 10 && response.errorCode === Errors.NOT_LEADER_OR_FOLLOWER)
    return request.respond({ ...response, currentLeader: process.replicas.getCurrentLeader(body.partition) });
  request.respond(response);
}

function produceError(errorCode: number, message: string): ProduceResponse {
  return { api: "Produce", errorCode, baseOffset: -1, errorMessage: message, currentLeader: NO_CURRENT_LEADER };
}

function produceOk(baseOffset: number): ProduceResponse {
  return { api: "Produce", errorCode: Errors.NONE, baseOffset, errorMessage: null, currentLeader: NO_CURRENT_LEADER };
}
