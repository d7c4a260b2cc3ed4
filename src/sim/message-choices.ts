import type { LinkFaults } from "./network.js";

/**
 * The one description of the choices a message draws on its link's stream, in order. Under the
 * adversarial network model (the link's `model` absent or "adversarial"):
 *
 *   [drop?] [duplicate?] then per copy: [slow?] [delay] [overtake?]
 *
 * Under the TCP model a connection delivers each message once and in order, so there is one copy
 * and no overtake; a segment lost on the wire is retransmitted and arrives late (its delay drawn
 * from the slow range, as a retransmission timeout):
 *
 *   [drop?] then, when dropped: [delay from the slow range]; else [slow?] [delay]
 *
 * `Network.transmit` draws a message's choices here, and transmit-choices.ts reads and rewrites
 * them on a tape by running this same function over a tape reader or writer, so the layout is
 * written once. A `?` choice is drawn only while faults are on, and (as a Stream does) only when
 * its rate is above zero; the delay only when its range holds more than one value. A delivery
 * policy that decides a copy's delay replaces that copy's slow and delay choices.
 */

/** Which choice of a message is drawn: a tape writer answers each by its meaning; a Stream ignores it. */
export type MessageChoice = "drop" | "duplicate" | "slow" | "delay" | "overtake";

/** Where a message's choices come from. A link's Stream is one (its methods take no name). */
export interface MessageChoiceSource {
  /** True with probability ppm / 1e6; draws nothing when ppm <= 0. */
  chance(ppm: number, choice: MessageChoice): boolean;
  /** An integer in [min, max]; draws nothing when max <= min. */
  between(min: number, max: number, choice: MessageChoice): number;
}

/**
 * What happens between a message's choices: transmit emits its trace events, asks its delivery
 * policy and schedules the copies there, so they keep their places among the draws (an exhaustive
 * search fingerprints the run's state at every choice).
 */
export interface MessageEffects {
  /** The message was lost (the drop choice); nothing more is drawn. */
  lost(): void;
  /** TCP model: the message's first transmission was lost; it arrives after a retransmission (its one copy is slow). */
  retransmitted(): void;
  /** Copy `copy` (1: the duplicate) is about to draw: a delay in ms decides it instead (a delivery policy), or null. */
  beforeCopy(copy: number): number | null;
  /** The copy's delay; `slow` when it came from the slow range. */
  delayed(copy: number, slow: boolean, delayMs: number): void;
  /** The copy's last choice: whether it may overtake earlier messages of its connection. */
  sent(copy: number, delayMs: number, mayOvertake: boolean): void;
}

/** Most copies of one message: the original and one duplicate. */
export const MAX_COPIES = 2;

/** Draw one message's choices from `source` under `faults` (`faulty`: the fault window is open). */
export function drawMessage(
  source: MessageChoiceSource,
  faults: LinkFaults,
  faulty: boolean,
  on: MessageEffects,
): void {
  if (faults.model === "tcp") return drawTcpMessage(source, faults, faulty, on);
  if (faulty && source.chance(faults.dropPpm, "drop")) return on.lost();
  const copies = faulty && source.chance(faults.duplicatePpm, "duplicate") ? MAX_COPIES : 1;
  const d = faults.delay;
  for (let copy = 0; copy < copies; copy++) {
    const decided = on.beforeCopy(copy);
    const slow = decided === null ? faulty && source.chance(d.slowPpm, "slow") : decided > d.maxMs;
    const delayMs =
      decided ?? (slow ? source.between(d.slowMinMs, d.slowMaxMs, "delay") : source.between(d.minMs, d.maxMs, "delay"));
    on.delayed(copy, slow, delayMs);
    on.sent(copy, delayMs, faulty && source.chance(faults.reorderPpm, "overtake"));
  }
}

/**
 * One message under the TCP model: one copy, in its connection's order. A drop is a lost segment
 * that TCP retransmits after a timeout (the slow range), never a message the receiver misses.
 */
function drawTcpMessage(source: MessageChoiceSource, faults: LinkFaults, faulty: boolean, on: MessageEffects): void {
  const retransmitted = faulty && source.chance(faults.dropPpm, "drop");
  if (retransmitted) on.retransmitted();
  const decided = on.beforeCopy(0);
  const d = faults.delay;
  const slow = decided === null ? retransmitted || (faulty && source.chance(d.slowPpm, "slow")) : decided > d.maxMs;
  const delayMs =
    decided ?? (slow ? source.between(d.slowMinMs, d.slowMaxMs, "delay") : source.between(d.minMs, d.maxMs, "delay"));
  on.delayed(0, slow, delayMs);
  on.sent(0, delayMs, false);
}
