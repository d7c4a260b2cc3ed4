import { ApiVersions } from "../../kafka/client/api-versions.js";
import { producerBehaviour } from "../../kafka/client/producer-behaviour.js";
import { type ProducerBatch, RecordAccumulator } from "../../kafka/client/record-accumulator.js";
import { TransactionManager } from "../../kafka/client/transaction-manager.js";
import type { TxnRequest, TxnResponseAction } from "../../kafka/client/txn-request.js";
import { Errors } from "../../kafka/common/errors.js";
import type { PartitionKey } from "../../kafka/common/types.js";
import type { ReleaseFlags } from "../../kafka/release.js";
import { CLIENT_ERRORS, type ClientAnswer, type ClientCase, type ClientClass, DISCONNECTED } from "./client-cases.js";

/** What the harness's producer uses (jvm/PROTOCOL.md): the same names and numbers on the model's side. */
const TRANSACTIONAL_ID = "eosfuzz-txn";
const DATA_PARTITION: PartitionKey = "eosfuzz-0";
const INPUT_PARTITION: PartitionKey = "eosfuzz-input-0";
const PRODUCER_ID = 1000;
const PRODUCER_EPOCH = 5;
const GROUP = { groupId: "eosfuzz-group", generationId: 3, memberId: "eosfuzz-member", groupInstanceId: null };
/** Sender loops without progress before the client counts as idle (the harness's bound, too). */
const MAX_LOOPS = 256;

/** A request the model's Sender would have on the wire: a coordinator request or a produce batch. */
type InFlight = { kind: "txn"; request: TxnRequest } | { kind: "produce"; batch: ProducerBatch };

/**
 * The model's answer to one cell: its TransactionManager alone, driven as the JVM harness drives
 * Kafka's (the same application calls, every earlier request answered with success), with the
 * Sender's part played here as src/kafka/client/sender.ts plays it: a coordinator answer goes to the
 * manager's handler, whose action says whether the request is sent again (after a coordinator
 * lookup), a dropped connection to handleDisconnect (Sender.handleTxnResponse); a FindCoordinator
 * answer to handleFindCoordinatorResponse (the judge the Sender hands ClientMetadata); a produce
 * answer completes the batch (DUPLICATE_SEQUENCE_NUMBER too), is retried when canRetry allows it,
 * or is handed to handleFailedBatch, a dropped connection being NETWORK_EXCEPTION (Sender.completeBatch).
 */
export function modelClientAnswer(flags: Readonly<ReleaseFlags>, c: ClientCase): ClientAnswer {
  return new ModelCase(flags, c).run();
}

class ModelCase {
  private readonly tm: TransactionManager;
  private readonly acc = new RecordAccumulator(16, 0);
  /** The cell's error code; null for a dropped connection. */
  private readonly code: number | null;
  private readonly inFlight: ProducerBatch[] = [];
  private epoch = PRODUCER_EPOCH;
  private initialized = false;

  constructor(
    flags: Readonly<ReleaseFlags>,
    private readonly c: ClientCase,
  ) {
    this.code = c.error === DISCONNECTED ? null : (CLIENT_ERRORS[c.error] as number);
    const apiVersions = new ApiVersions();
    apiVersions.update({ transactionVersion: c.transactionVersion, epoch: 0 });
    // A release whose brokers know no TV2 is a release whose client does not either (3.x).
    const clientVersion = flags.supportsTransactionVersion2 ? 2 : 1;
    this.tm = new TransactionManager(
      TRANSACTIONAL_ID,
      clientVersion,
      producerBehaviour(flags),
      { fatal: () => {}, abortable: () => {} },
      apiVersions,
    );
  }

  run(): ClientAnswer {
    const { tm } = this;
    tm.initializeTransactions(() => {
      this.initialized = true;
    });
    if (this.c.api === "FindCoordinator") return this.findCoordinator();
    const init = this.until("InitProducerId");
    if (this.c.api === "InitProducerId") return this.strike(init);
    this.succeed(init);
    if (!this.initialized) throw new Error("the model's initTransactions did not complete");
    // TransactionalProducer.initTransactions, once the result is done.
    tm.maybeUpdateTransactionV2Enabled({ onInitialization: true });
    tm.beginTransaction();
    switch (this.c.api) {
      case "InitProducerId(bump)": {
        // KIP-360: an abortable produce error, then the abort; a TV0/1 client bumps its epoch with
        // InitProducerId after the EndTxn (the harness answers the produce INVALID_PRODUCER_EPOCH too).
        this.send();
        const produce = this.until("Produce");
        if (produce?.kind !== "produce") throw new Error("the model sent no produce request");
        this.inFlight.splice(this.inFlight.indexOf(produce.batch), 1);
        tm.handleFailedBatch(produce.batch, Errors.INVALID_PRODUCER_EPOCH, "Produce: INVALID_PRODUCER_EPOCH", false);
        this.acc.complete(produce.batch);
        tm.beginAbort(() => {});
        return this.strike(this.until("InitProducerId"));
      }
      case "AddPartitionsToTxn":
        this.send();
        return this.strike(this.until("AddPartitionsToTxn"));
      case "Produce": {
        this.send();
        this.succeed(this.until("Produce"));
        this.send();
        return this.strike(this.until("Produce"));
      }
      case "AddOffsetsToTxn":
        tm.sendOffsetsToTransaction([{ partition: INPUT_PARTITION, offset: 42 }], GROUP);
        return this.strike(this.until("AddOffsetsToTxn"));
      case "TxnOffsetCommit":
        tm.sendOffsetsToTransaction([{ partition: INPUT_PARTITION, offset: 42 }], GROUP);
        return this.strike(this.until("TxnOffsetCommit"));
      case "EndTxn(COMMIT)":
      case "EndTxn(ABORT)": {
        this.send();
        if (this.until(null) !== null) throw new Error("the model has a request in flight before EndTxn");
        if (this.c.api === "EndTxn(COMMIT)") {
          this.acc.beginFlush();
          tm.beginCommit(() => {});
        } else tm.beginAbort(() => {});
        return this.strike(this.until("EndTxn"));
      }
    }
  }

  /** KafkaProducer.send of one record: into the accumulator, then maybeAddPartition (TransactionalProducer.send). */
  private send(): void {
    this.tm.maybeAddPartition(DATA_PARTITION);
    this.acc.append(DATA_PARTITION, "v", null, 0);
  }

  /**
   * Sender loops (Sender.runOnce: a coordinator request first, else produce), every request other
   * than the target answered with success, until a request of `target` is in flight; null when the
   * client is idle without one.
   */
  private until(target: TxnRequest["api"] | "Produce" | null): InFlight | null {
    for (let loop = 0; loop < MAX_LOOPS; loop++) {
      if (this.tm.hasFatalError) return null;
      if (this.tm.hasAbortableError || this.tm.state === "ABORTING_TRANSACTION")
        for (const b of this.acc.abortUndrainedBatches()) this.acc.complete(b);
      const next = this.tm.nextRequest(this.acc.hasIncomplete(), 0);
      if (next !== null) {
        const sent: InFlight = { kind: "txn", request: next.request };
        if (next.request.api === target) return sent;
        this.succeed(sent);
        continue;
      }
      this.drain();
      const batch = this.inFlight[0];
      if (batch === undefined) return null;
      const sent: InFlight = { kind: "produce", batch };
      if (target === "Produce") return sent;
      this.succeed(sent);
    }
    throw new Error(`the model's client did not settle in ${MAX_LOOPS} Sender loops`);
  }

  /** Sender.sendProducerData: each partition's first ready batch, when the manager allows it. */
  private drain(): void {
    for (const partition of this.acc.partitionsWithQueuedBatches()) {
      if (!this.tm.isSendToPartitionAllowed(partition)) continue;
      const batch = this.acc.first(partition);
      if (batch === null || this.acc.readyAtMs(batch) > 0 || this.tm.shouldStopDrain(batch)) continue;
      this.tm.assignSequence(batch);
      this.acc.drain(batch);
      this.inFlight.push(batch);
    }
  }

  /** The success answer of a request, as the harness's broker gives it. */
  private succeed(r: InFlight | null): void {
    if (r === null) throw new Error(`the model never sent the request ${this.c.api} needs first`);
    if (r.kind === "produce") {
      this.inFlight.splice(this.inFlight.indexOf(r.batch), 1);
      this.tm.handleCompletedBatch(r.batch);
      this.acc.complete(r.batch);
      return;
    }
    const action = this.answer(r.request, Errors.NONE);
    if (action !== "done") throw new Error(`the model retried a successful ${r.request.api}`);
  }

  /** The manager's handler of a coordinator request with `code` (Sender.handleTxnResponse). */
  private answer(request: TxnRequest, code: number): TxnResponseAction {
    const { tm } = this;
    const ok = code === Errors.NONE;
    switch (request.api) {
      case "InitProducerId":
        return tm.handleInitProducerIdResponse(code, ok ? PRODUCER_ID : -1, ok ? this.epoch : -1);
      case "AddPartitionsToTxn":
        return tm.handleAddPartitionsResponse(request.partitions, code);
      case "AddOffsetsToTxn":
        return tm.handleAddOffsetsResponse(request, code);
      case "TxnOffsetCommit":
        return tm.handleTxnOffsetCommitResponse(code);
      case "EndTxn": {
        // Only EndTxn v5 (TV2) answers with the epoch the coordinator bumped to.
        const v5 = request.transactionVersion >= 2;
        if (ok && v5) this.epoch++;
        return tm.handleEndTxnResponse(code, ok && v5 ? PRODUCER_ID : -1, ok && v5 ? this.epoch : -1);
      }
    }
  }

  /** Answer the request under test with the cell's error; read the manager back. */
  private strike(r: InFlight | null): ClientAnswer {
    const { tm } = this;
    const before = tm.state;
    const transactionV2 = tm.isTransactionV2Enabled;
    if (r === null) return this.read(false, before, transactionV2, false, null);
    if (r.kind === "produce") {
      const batch = r.batch;
      this.inFlight.splice(this.inFlight.indexOf(batch), 1);
      // Sender.completeBatch: success, a retry the manager allows, or a failure it judges.
      // A dropped connection fails the produce with NETWORK_EXCEPTION (Sender.handleProduceResponse).
      const code = this.code ?? Errors.NETWORK_EXCEPTION;
      if (code === Errors.NONE || code === Errors.DUPLICATE_SEQUENCE_NUMBER) {
        tm.handleCompletedBatch(batch);
        this.acc.complete(batch);
        return this.read(true, before, transactionV2, false, null);
      }
      if (tm.canRetry(code, batch)) {
        this.acc.reenqueue(batch, 0, 0);
        return this.read(true, before, transactionV2, true, null);
      }
      tm.handleFailedBatch(batch, code, `Produce: ${this.c.error}`, false);
      this.acc.complete(batch);
      return this.read(true, before, transactionV2, false, null);
    }
    const action = this.code === null ? tm.handleDisconnect() : this.answer(r.request, this.code);
    const lookup =
      action === "lookup-and-retry" ? (r.request.api === "TxnOffsetCommit" ? "GROUP" : "TRANSACTION") : null;
    return this.read(true, before, transactionV2, action !== "done", lookup);
  }

  /**
   * initTransactions' lookup of the transaction coordinator: ClientMetadata asks again after a
   * dropped connection, and hands every error to the manager's FindCoordinatorHandler.
   */
  private findCoordinator(): ClientAnswer {
    const { tm } = this;
    const before = tm.state;
    const transactionV2 = tm.isTransactionV2Enabled;
    const action = this.code === null ? "retry" : tm.handleFindCoordinatorResponse("TRANSACTION", this.code);
    return this.read(true, before, transactionV2, action !== "done", null);
  }

  private read(
    sent: boolean,
    before: string,
    transactionV2: boolean,
    requeued: boolean,
    coordinatorLookup: ClientAnswer["coordinatorLookup"],
  ): ClientAnswer {
    const { tm } = this;
    return {
      sent,
      before,
      transactionV2,
      state: tm.state,
      class: sent ? classOf(tm.state, requeued, tm.abortFailure !== null) : "unsent",
      epochBumpRequired: tm.epochBumpRequired,
      requeued,
      coordinatorLookup,
      lastError: tm.lastError,
    };
  }
}

/** The class rule of the harness (TransactionManagerService.classOf), on the model's state. */
function classOf(state: string, requeued: boolean, failed: boolean): ClientClass {
  if (state === "FATAL_ERROR") return "fatal";
  if (state === "ABORTABLE_ERROR") return "abortable";
  if (requeued) return "retry";
  if (failed) return "failed";
  return "ok";
}
