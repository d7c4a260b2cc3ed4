import { ChoiceSource } from "./choice-tape.js";
import {
  drawMessage,
  MAX_COPIES,
  type MessageChoice,
  type MessageChoiceSource,
  type MessageEffects,
} from "./message-choices.js";
import type { LinkFaults } from "./network.js";

/**
 * A message's choices on its link's stream, read and rewritten on a tape while faults are on. Their
 * layout is not repeated here: the reader and the writer run drawMessage (message-choices.ts), the
 * function `Network.transmit` draws with, over the tape. No delivery policy may be set (PCT's
 * policy decides delays itself). A test replays rewritten tapes through a real Network.
 */

/** What one copy of a message drew. */
interface CopyDecisions {
  slow: boolean;
  delayMs: number;
  mayOvertake: boolean;
}

/** A message's decisions as read from a tape, and how many choices they took there. */
interface MessageRead {
  lost: boolean;
  copies: CopyDecisions[];
  length: number;
}

/** The name of the one stream a tape is read on (any name: the tape holds a single link's choices). */
const LINK = "link";

/** Notes each copy's decisions as drawMessage reports them. */
class DecisionRecorder implements MessageEffects {
  wasLost = false;
  readonly copies: CopyDecisions[] = [];

  lost(): void {
    this.wasLost = true;
  }

  retransmitted(): void {}

  beforeCopy(): number | null {
    return null;
  }

  delayed(copy: number, slow: boolean, delayMs: number): void {
    this.copies[copy] = { slow, delayMs, mayOvertake: false };
  }

  sent(copy: number, _delayMs: number, mayOvertake: boolean): void {
    (this.copies[copy] as CopyDecisions).mayOvertake = mayOvertake;
  }
}

/** The message whose choices begin at `at`, read as a link's Stream would replay it; null when the tape ends first. */
function readMessage(choices: readonly number[], at: number, faults: LinkFaults): MessageRead | null {
  const rest = choices.slice(at);
  const source = ChoiceSource.replaying({ [LINK]: rest });
  const recorder = new DecisionRecorder();
  drawMessage(source.stream(LINK), faults, true, recorder);
  const length = source.positionOf(LINK);
  if (length > rest.length) return null;
  return { lost: recorder.wasLost, copies: recorder.copies, length };
}

/**
 * Writes the options that make a message draw wanted decisions: not lost, duplicated when two
 * copies are wanted, each copy as wanted. It answers each choice by its name and writes the option
 * a Stream reads as that answer (true is option 1; a range's value v is option v - min); a choice
 * the link's faults cannot make leaves it unreachable.
 */
class DecisionWriter implements MessageChoiceSource, MessageEffects {
  readonly options: number[] = [];
  unreachable = false;
  private copy = 0;

  constructor(private readonly wanted: readonly CopyDecisions[]) {}

  private answer(choice: MessageChoice): boolean {
    const copy = this.wanted[this.copy] as CopyDecisions;
    if (choice === "duplicate") return this.wanted.length === MAX_COPIES;
    if (choice === "slow") return copy.slow;
    if (choice === "overtake") return copy.mayOvertake;
    return false;
  }

  chance(ppm: number, choice: MessageChoice): boolean {
    const yes = this.answer(choice);
    if (ppm <= 0) {
      this.unreachable ||= yes;
      return false;
    }
    this.options.push(yes ? 1 : 0);
    return yes;
  }

  between(min: number, max: number): number {
    const want = (this.wanted[this.copy] as CopyDecisions).delayMs;
    if (want < min || want > max) {
      this.unreachable = true;
      return min;
    }
    if (max > min) this.options.push(want - min);
    return want;
  }

  lost(): void {
    this.unreachable = true;
  }

  retransmitted(): void {
    this.unreachable = true;
  }

  beforeCopy(copy: number): number | null {
    this.copy = copy;
    return null;
  }

  delayed(): void {}

  sent(): void {}
}

/** The options of a message that draws `wanted` under `faults`, or null when the link cannot draw it so. */
function writeMessage(faults: LinkFaults, wanted: readonly CopyDecisions[]): number[] | null {
  if (wanted.length < 1 || wanted.length > MAX_COPIES)
    throw new Error(`a message has 1 or 2 copies, not ${wanted.length}`);
  const writer = new DecisionWriter(wanted);
  drawMessage(writer, faults, true, writer);
  if (writer.unreachable) return null;
  // The writer's idea of how a Stream reads options must be the Stream's own.
  const back = readMessage(writer.options, 0, faults);
  if (back?.lost !== false || back.length !== writer.options.length || !sameCopies(back.copies, wanted))
    throw new Error(`rewritten message choices ${JSON.stringify(writer.options)} do not replay as written`);
  return writer.options;
}

function sameCopies(a: readonly CopyDecisions[], b: readonly CopyDecisions[]): boolean {
  return (
    a.length === b.length &&
    a.every((c, i) => c.slow === b[i]?.slow && c.delayMs === b[i]?.delayMs && c.mayOvertake === b[i]?.mayOvertake)
  );
}

/**
 * A late copy: it arrives `delayMs` after the send, from the normal range when that holds it (the
 * slow range otherwise), and keeps its connection's order, as most copies do.
 */
function lateCopy(faults: LinkFaults, delayMs: number): CopyDecisions {
  const slow = delayMs > faults.delay.maxMs || delayMs < faults.delay.minMs;
  return { slow, delayMs, mayOvertake: false };
}

/** Whether the link can duplicate a message and deliver the second copy `delayMs` after the send. */
export function canDuplicateLate(faults: LinkFaults, delayMs: number): boolean {
  if (faults.model === "tcp") return false;
  const anyFirst = { slow: false, delayMs: faults.delay.minMs, mayOvertake: false };
  return writeMessage(faults, [anyFirst, lateCopy(faults, delayMs)]) !== null;
}

/**
 * A link stream's choices with the message whose draws begin at `at` delivered twice: its first copy
 * as before, and a second copy (a network duplicate) that arrives `delayMs` after the send. Every
 * later message on the link draws what it drew before, so the rest of the run replays unchanged
 * until that copy lands. Null when the message was lost, the link never duplicates, or its delays
 * cannot reach `delayMs`, or under the TCP model. An existing duplicate gets the new delay instead. The message's own
 * choices are written as a recorded tape holds them (an option out of range on the given tape is
 * written reduced, which replays the same).
 */
export function withLateDuplicate(
  choices: readonly number[],
  at: number,
  faults: LinkFaults,
  delayMs: number,
): number[] | null {
  // TCP never duplicates inside a connection: a late copy there is a sender's re-send.
  if (faults.model === "tcp") return null;
  const message = readMessage(choices, at, faults);
  if (message === null || message.lost) return null;
  const written = writeMessage(faults, [message.copies[0] as CopyDecisions, lateCopy(faults, delayMs)]);
  if (written === null) return null;
  return choices.slice(0, at).concat(written, choices.slice(at + message.length));
}

/**
 * Under the TCP model, whether the link can deliver a message's one copy `delayMs` after the send
 * (a slow first copy: its sender times out, re-sends on a new connection, and the first copy still
 * arrives).
 */
export function canDelayLate(faults: LinkFaults, delayMs: number): boolean {
  return faults.model === "tcp" && writeMessage(faults, [lateCopy(faults, delayMs)]) !== null;
}

/**
 * Under the TCP model, a link stream's choices with the message whose draws begin at `at` arriving
 * `delayMs` after the send, its one copy slow: what TCP makes of a request that outlives its
 * sender's request timeout (the sender closes the connection and re-sends; the first copy is
 * still delivered and processed). Every later message on the link draws what it drew before. Null
 * when the link is not TCP, its faults cannot delay a message that long, or the tape ends first.
 */
export function withLateFirstCopy(
  choices: readonly number[],
  at: number,
  faults: LinkFaults,
  delayMs: number,
): number[] | null {
  if (faults.model !== "tcp") return null;
  const message = readMessage(choices, at, faults);
  if (message === null) return null;
  const written = writeMessage(faults, [lateCopy(faults, delayMs)]);
  if (written === null) return null;
  return choices.slice(0, at).concat(written, choices.slice(at + message.length));
}
