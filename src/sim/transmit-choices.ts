import type { LinkFaults } from "./network.js";

/**
 * The choices `Network.transmit` draws for one message on its link's stream while faults are on, in
 * order, read and rewritten on a tape. The layout is transmit's and must stay in step with it (a test
 * replays a rewritten tape through a real Network):
 *
 *   [drop?] [duplicate?] then per copy: [slow?] [delay] [overtake?]
 *
 * A `?` choice is drawn only when its rate is above zero; the delay only when its range (the slow
 * range when the copy is slow) holds more than one value. No delivery policy may be set (PCT's
 * policy decides delays itself).
 */

/** How many choices one copy drew from `at` (null when the tape ends first). */
function copyLength(choices: readonly number[], at: number, faults: LinkFaults): number | null {
  const d = faults.delay;
  let i = at;
  let slow = false;
  if (d.slowPpm > 0) {
    const c = choices[i++];
    if (c === undefined) return null;
    slow = c % 2 === 1;
  }
  const [min, max] = slow ? [d.slowMinMs, d.slowMaxMs] : [d.minMs, d.maxMs];
  if (max > min) i++;
  if (faults.reorderPpm > 0) i++;
  return i > choices.length ? null : i - at;
}

/** The choices of one copy that arrives `delayMs` after it was sent, in order, or null if the link cannot delay it so. */
function copyChoices(faults: LinkFaults, delayMs: number): number[] | null {
  const d = faults.delay;
  const slow = delayMs > d.maxMs || delayMs < d.minMs;
  if (slow && !(d.slowPpm > 0 && delayMs >= d.slowMinMs && delayMs <= d.slowMaxMs)) return null;
  const out: number[] = [];
  if (d.slowPpm > 0) out.push(slow ? 1 : 0);
  const [min, max] = slow ? [d.slowMinMs, d.slowMaxMs] : [d.minMs, d.maxMs];
  if (max > min) out.push(delayMs - min);
  // No overtaking: the copy keeps its connection's order, as most copies do.
  if (faults.reorderPpm > 0) out.push(0);
  return out;
}

/** Whether the link can duplicate a message and deliver the second copy `delayMs` after the send. */
export function canDuplicateLate(faults: LinkFaults, delayMs: number): boolean {
  return faults.duplicatePpm > 0 && copyChoices(faults, delayMs) !== null;
}

/**
 * A link stream's choices with the message whose draws begin at `at` delivered twice: its first copy
 * as before, and a second copy (a network duplicate) that arrives `delayMs` after the send. Every
 * later message on the link draws what it drew before, so the rest of the run replays unchanged
 * until that copy lands. Null when the message was lost, the link never duplicates, or its delays
 * cannot reach `delayMs`. An existing duplicate gets the new delay instead.
 */
export function withLateDuplicate(
  choices: readonly number[],
  at: number,
  faults: LinkFaults,
  delayMs: number,
): number[] | null {
  const second = faults.duplicatePpm > 0 ? copyChoices(faults, delayMs) : null;
  if (second === null) return null;
  let i = at;
  if (faults.dropPpm > 0) {
    const dropped = choices[i++];
    if (dropped === undefined || dropped % 2 === 1) return null;
  }
  const duplicated = choices[i];
  if (duplicated === undefined) return null;
  const first = copyLength(choices, i + 1, faults);
  if (first === null) return null;
  const secondAt = i + 1 + first;
  const replaced = duplicated % 2 === 1 ? copyLength(choices, secondAt, faults) : 0;
  if (replaced === null) return null;
  const out = choices.slice(0, i);
  out.push(1, ...choices.slice(i + 1, secondAt), ...second, ...choices.slice(secondAt + replaced));
  return out;
}
