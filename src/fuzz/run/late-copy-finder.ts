import type { GhostObserver, MarkerOutcome, MarkerSend } from "../../kafka/ghost.js";
import type { LinkFaults, TransmitObserver } from "../../sim/network.js";
import { markerWire } from "../../oracle/protocol-coverage.js";
import { canDelayLate, canDuplicateLate } from "../../sim/transmit-choices.js";

/**
 * A marker copy that a duplicate could have turned stale: had the network delivered it a second
 * time, `delayMs` after it was sent, the second copy would have reached its partition just after a
 * newer transaction of the same producer wrote there. A stale marker needs exactly that (a late
 * copy while the producer's next transaction is open at the partition), and a random run rarely
 * lines it up; the coverage strategy aims at it by rewriting the copy's choices on the tape
 * (transmit-choices.ts), so the run it makes is one the scenario's own faults could have made.
 */
export interface LateCopyTarget {
  /** The link stream the copy's choices are on, and the position of its first choice there. */
  stream: string;
  at: number;
  /** The faults its choices were drawn under (they decide their layout). */
  faults: LinkFaults;
  delayMs: number;
  /** Where the copy landed: the leader's release and the request's wire (`v1` or `v2-tvN`). */
  release: string;
  wire: string;
  /**
   * How the late copy is made: a network duplicate (the adversarial model), or under TCP the
   * first copy itself slowed past the sender's request timeout (the sender re-sends; the first
   * copy still arrives), so `delayMs` is where the next transaction wrote in the run without it,
   * before the re-send's delay.
   */
  how: "duplicate" | "first-copy";
}

/** Most targets one run offers per (release, wire): enough to aim at each partition leader kind. */
const MAX_TARGETS_PER_KIND = 8;
/** Bound on the marker sends one run remembers (a run sends far fewer). */
const MAX_SENDS = 20_000;

interface SentCopy {
  send: MarkerSend;
  stream: string;
  at: number;
  faults: LinkFaults;
}

/**
 * Watches a run through the ghost feed and the network, and lists its late-copy targets at the end.
 * It notes, for each marker copy sent while faults were on, where its link stream stood before the
 * copy drew its choices; for each partition and producer, when each transaction first wrote there;
 * and where each copy landed.
 */
export class LateCopyFinder implements GhostObserver, TransmitObserver {
  private readonly sends: SentCopy[] = [];
  /**
   * The latest request that drew fault choices: its correlation id, link stream, where that stood,
   * and its faults. The coordinator announces a marker copy right after handing it to the network,
   * before any other request can be sent, so the latest is the one to match.
   */
  private latest: { correlationId: number; stream: string; at: number; faults: LinkFaults } | null = null;
  /** ghost transaction -> the transaction its transactional.id began next. */
  private readonly nextTxn = new Map<string, string>();
  /** transactional.id -> the transaction it began last. */
  private readonly lastBegun = new Map<string, string>();
  /** `${partition}|${producerId}` -> transactions in the order they first wrote there, with when. */
  private readonly firstWrites = new Map<string, { ghostTxn: string; atMs: number }[]>();
  /** `${correlationId}|${partition}` -> where that copy first landed. */
  private readonly landed = new Map<string, { release: string; wire: string }>();

  /** positionOf: how many choices a stream has made so far. */
  constructor(private readonly positionOf: (stream: string) => number) {}

  targets(): LateCopyTarget[] {
    const out: LateCopyTarget[] = [];
    const perKind = new Map<string, number>();
    for (const copy of this.sends) {
      for (const partition of copy.send.partitions) {
        const target = this.targetFor(copy, partition);
        if (!target) continue;
        const kind = `${target.release} ${target.wire}`;
        const n = perKind.get(kind) ?? 0;
        if (n >= MAX_TARGETS_PER_KIND) continue;
        perKind.set(kind, n + 1);
        out.push(target);
      }
    }
    return out;
  }

  /**
   * The copy's transaction's successor (the next one its transactional.id began), if it wrote at
   * `partition` after the send and a duplicate can reach that moment. Only the very next one: a
   * later one runs at a higher epoch, which even the legacy rule holds above the copy's.
   */
  private targetFor(copy: SentCopy, partition: string): LateCopyTarget | null {
    const { send } = copy;
    const landed = this.landed.get(`${send.correlationId}|${partition}`);
    const next = send.ghostTxn === null ? undefined : this.nextTxn.get(send.ghostTxn);
    if (!landed || next === undefined) return null;
    const write = this.firstWrites.get(`${partition}|${send.producerId}`)?.find((w) => w.ghostTxn === next);
    if (!write || write.atMs <= send.atMs) return null;
    const delayMs = write.atMs + 1 - send.atMs;
    // Only a late copy the link's own faults could make: a duplicate, or under TCP a slow first copy.
    if (copy.faults.model === "tcp")
      return canDelayLate(copy.faults, delayMs)
        ? { stream: copy.stream, at: copy.at, faults: copy.faults, delayMs, ...landed, how: "first-copy" }
        : null;
    if (!canDuplicateLate(copy.faults, delayMs)) return null;
    return { stream: copy.stream, at: copy.at, faults: copy.faults, delayMs, ...landed, how: "duplicate" };
  }

  txnBegun(e: { ghostTxn: string; transactionalId: string }): void {
    const last = this.lastBegun.get(e.transactionalId);
    if (last !== undefined && last !== e.ghostTxn && !this.nextTxn.has(last)) this.nextTxn.set(last, e.ghostTxn);
    this.lastBegun.set(e.transactionalId, e.ghostTxn);
  }

  batchAppended(e: GhostBatchAppended): void {
    const b = e.batch;
    if (b.control !== null || !b.isTransactional || b.ghostTxn === null) return;
    const key = `${e.partition}|${b.producerId}`;
    const list = this.firstWrites.get(key) ?? [];
    // One entry per transaction (its first write); a producer's transactions at one partition are few.
    if (list.some((w) => w.ghostTxn === b.ghostTxn)) return;
    list.push({ ghostTxn: b.ghostTxn, atMs: e.atMs });
    this.firstWrites.set(key, list);
  }

  requestDrawing(correlationId: number, stream: string, faults: LinkFaults): void {
    this.latest = { correlationId, stream, at: this.positionOf(stream), faults };
  }

  /** Told after the request was handed to the network (a request that drew no fault choices is no target). */
  markerSent(e: MarkerSend): void {
    const drawn = this.latest;
    if (drawn?.correlationId === e.correlationId && this.sends.length < MAX_SENDS)
      this.sends.push({ send: e, stream: drawn.stream, at: drawn.at, faults: drawn.faults });
  }

  markerApplied(e: MarkerOutcome): void {
    const key = `${e.correlationId}|${e.partition}`;
    if (!this.landed.has(key))
      this.landed.set(key, { release: e.brokerRelease, wire: markerWire(e.requestVersion, e.transactionVersionSeen) });
  }

  txnDecided(): void {}
  txnCompleted(): void {}
  markerRequestRefused(): void {}
  markerSendingAbandoned(): void {}
  markerCompletionWakeupLost(): void {}

  producerEpochAssigned(): void {}

  producerFatal(): void {}

  producerOutcome(): void {}
  sendFailed(): void {}

  leaderChanged(): void {}

  replicaTruncated(): void {}
}

type GhostBatchAppended = Parameters<GhostObserver["batchAppended"]>[0];
