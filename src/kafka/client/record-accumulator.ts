import { BoundExceeded } from "../../sim/bounds.js";
import { NO_SEQUENCE, type PartitionKey } from "../common/types.js";

/**
 * ProducerBatch: records for one partition, sent together. Its producer id, epoch and base
 * sequence are fixed when it is first drained, and kept on every retry, so the leader's
 * duplicate detection recognises a retry of a batch it already appended.
 */
export class ProducerBatch {
  readonly values: string[] = [];
  producerId = -1;
  producerEpoch = -1;
  baseSequence = NO_SEQUENCE;
  /** The batch's transactional flag, fixed when it is first drained (false only under KAFKA-5364's bug switch). */
  isTransactional = true;
  /** Times sent; a retry is queued again at the front of its partition. */
  attempts = 0;
  /** When the batch may be drained again after a retriable error (retry.backoff.ms). */
  retryAtMs = 0;
  /** lastAttemptMs: when a retry was queued again (linger.ms counts from there once it need not back off). */
  lastAttemptMs = 0;
  /** The leader epoch the batch is sent to, as the metadata last said (null: not known yet). */
  private currentLeaderEpoch: number | null = null;
  /** The attempt at which currentLeaderEpoch last grew. */
  private attemptsWhenLeaderLastChanged = 0;
  inRetry = false;
  /** sequenceHasBeenReset: an epoch bump rewrote the batch's id, epoch and sequence (startSequencesAtBeginning). */
  sequenceHasBeenReset = false;
  /** Sent and not yet answered. */
  inFlight = false;
  done = false;

  constructor(
    readonly partition: PartitionKey,
    /** The transaction attempt the records belong to (the oracle's name for it). */
    readonly ghostTxn: string | null,
    readonly createdMs: number,
  ) {}

  get recordCount(): number {
    return this.values.length;
  }

  get hasSequence(): boolean {
    return this.baseSequence !== NO_SEQUENCE;
  }

  get lastSequence(): number {
    return this.baseSequence + this.values.length - 1;
  }

  /**
   * ProducerBatch.maybeUpdateLeaderEpoch (3.7+, KIP-951), called whenever the batch is checked for
   * sending: a newer epoch in the metadata (from a refresh, or from a Produce error response naming
   * the new leader) is the one this attempt goes to. `attempts` counts sends, which is Kafka's count
   * of re-enqueues whenever the batch waits in its queue (the only time this is called).
   */
  maybeUpdateLeaderEpoch(latestLeaderEpoch: number | null): void {
    if (
      latestLeaderEpoch !== null &&
      latestLeaderEpoch >= 0 &&
      (this.currentLeaderEpoch === null || this.currentLeaderEpoch < latestLeaderEpoch)
    ) {
      this.attemptsWhenLeaderLastChanged = this.attempts;
      this.currentLeaderEpoch = latestLeaderEpoch;
    }
  }

  /** ProducerBatch.hasLeaderChangedForTheOngoingRetry: this retry goes to a newer leader (so it skips retry.backoff.ms). */
  hasLeaderChangedForTheOngoingRetry(): boolean {
    if (this.attempts < 1) return false;
    return this.attempts === this.attemptsWhenLeaderLastChanged;
  }

  /** ProducerBatch.hasReachedDeliveryTimeout: the batch's time is up, sent or not. */
  hasReachedDeliveryTimeout(deliveryTimeoutMs: number, nowMs: number): boolean {
    return nowMs - this.createdMs >= deliveryTimeoutMs;
  }
}

/** Bound on batches queued for one partition (the workload appends whole transactions, far fewer). */
const MAX_BATCHES_PER_PARTITION = 10_000;

/**
 * RecordAccumulator: one queue of batches per partition. send() appends to the last batch of the
 * partition while it has room and was not drained; the Sender drains a partition's first batch
 * once it is full, lingered long enough, or a flush asked for everything.
 */
export class RecordAccumulator {
  private readonly batches = new Map<PartitionKey, ProducerBatch[]>();
  /** Batches created and not yet done (sent or not): what flush() and commitTransaction wait for. */
  private incomplete = 0;
  private flushing = false;

  constructor(
    private readonly recordsPerBatch: number,
    private readonly lingerMs: number,
  ) {}

  /** RecordAccumulator.append: into the partition's open batch, or a new one when it is full. */
  append(partition: PartitionKey, value: string, ghostTxn: string | null, nowMs: number): ProducerBatch {
    let queue = this.batches.get(partition);
    if (!queue) {
      queue = [];
      this.batches.set(partition, queue);
    }
    const last = queue[queue.length - 1];
    if (last && !last.hasSequence && !last.inRetry && last.recordCount < this.recordsPerBatch) {
      last.values.push(value);
      return last;
    }
    if (queue.length >= MAX_BATCHES_PER_PARTITION)
      throw new BoundExceeded(`producer batches queued for ${partition}`, MAX_BATCHES_PER_PARTITION);
    const batch = new ProducerBatch(partition, ghostTxn, nowMs);
    batch.values.push(value);
    queue.push(batch);
    this.incomplete++;
    return batch;
  }

  /** beginFlush: every queued batch is ready now (commitTransaction and KafkaProducer.flush). */
  beginFlush(): void {
    this.flushing = true;
  }

  hasIncomplete(): boolean {
    return this.incomplete > 0;
  }

  /** Partitions whose first batch waits in the queue (not in flight), in the order they were first used. */
  partitionsWithQueuedBatches(): PartitionKey[] {
    const out: PartitionKey[] = [];
    for (const [partition, queue] of this.batches) if (queue.length > 0) out.push(partition);
    return out;
  }

  first(partition: PartitionKey): ProducerBatch | null {
    return this.batches.get(partition)?.[0] ?? null;
  }

  /**
   * When the partition's first batch may be sent (RecordAccumulator.batchReady with shouldBackoff):
   * a retry backs off until retry.backoff.ms is over, unless it goes to a newer leader than its last
   * attempt; otherwise now if full (or others wait behind it), flushed, else linger.ms after its
   * creation (a retry: after it was queued again).
   */
  readyAtMs(batch: ProducerBatch): number {
    if (batch.inRetry && !batch.hasLeaderChangedForTheOngoingRetry()) return batch.retryAtMs;
    if (this.flushing || batch.recordCount >= this.recordsPerBatch) return 0;
    if (!batch.inRetry) return batch.createdMs + this.lingerMs;
    if ((this.batches.get(batch.partition)?.length ?? 0) > 1) return 0;
    return batch.lastAttemptMs + this.lingerMs;
  }

  /** Take the partition's first batch off its queue to send it. */
  drain(batch: ProducerBatch): void {
    const queue = this.batches.get(batch.partition) ?? [];
    if (queue[0] !== batch) throw new Error(`${batch.partition}: drained a batch that is not first in line`);
    queue.shift();
    batch.inFlight = true;
    batch.attempts++;
  }

  /** reenqueue: a retriable failure puts the batch back at the front, to be sent after retry.backoff.ms. */
  reenqueue(batch: ProducerBatch, retryAtMs: number, nowMs: number): void {
    batch.inFlight = false;
    batch.inRetry = true;
    batch.retryAtMs = retryAtMs;
    batch.lastAttemptMs = nowMs;
    const queue = this.batches.get(batch.partition) ?? [];
    // Keep sequence order: a retry goes before every batch with a higher sequence or none.
    let at = 0;
    while (
      at < queue.length &&
      (queue[at] as ProducerBatch).hasSequence &&
      (queue[at] as ProducerBatch).baseSequence < batch.baseSequence
    )
      at++;
    queue.splice(at, 0, batch);
  }

  /** The batch is finished (acknowledged or failed): it no longer holds up a flush. */
  complete(batch: ProducerBatch): void {
    if (batch.done) return;
    batch.done = true;
    batch.inFlight = false;
    this.incomplete--;
    if (this.incomplete === 0) this.flushing = false;
  }

  /** Queued batches (never sent, or waiting for a retry) past delivery.timeout.ms (RecordAccumulator.expiredBatches). */
  expiredBatches(deliveryTimeoutMs: number, nowMs: number): ProducerBatch[] {
    const out: ProducerBatch[] = [];
    for (const queue of this.batches.values()) {
      while (queue.length > 0 && (queue[0] as ProducerBatch).hasReachedDeliveryTimeout(deliveryTimeoutMs, nowMs))
        out.push(queue.shift() as ProducerBatch);
    }
    return out;
  }

  /**
   * abortUndrainedBatches: in an abortable error state, batches never sent are failed without
   * being sent (Sender.maybeAbortBatches); batches in flight or waiting for a retry finish on their own.
   */
  abortUndrainedBatches(): ProducerBatch[] {
    const out: ProducerBatch[] = [];
    for (const queue of this.batches.values()) {
      // A batch with a sequence was sent before: its fate at the leader is unknown, so it is retried, not dropped.
      const keep = queue.filter((b) => b.hasSequence);
      for (const b of queue) if (!b.hasSequence) out.push(b);
      queue.splice(0, queue.length, ...keep);
    }
    return out;
  }

  /** The earliest time a queued batch becomes ready (null: nothing queued). */
  nextReadyAtMs(): number | null {
    let next: number | null = null;
    for (const queue of this.batches.values()) {
      const first = queue[0];
      if (!first) continue;
      const at = this.readyAtMs(first);
      if (next === null || at < next) next = at;
    }
    return next;
  }
}
