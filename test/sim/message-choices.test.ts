import { describe, expect, it } from "vitest";
import { drawMessage, type MessageChoice, type MessageEffects } from "../../src/sim/message-choices.js";
import type { LinkFaults } from "../../src/sim/network.js";

const faulty: LinkFaults = {
  delay: { minMs: 1, maxMs: 5, slowPpm: 200_000, slowMinMs: 250, slowMaxMs: 1_500 },
  dropPpm: 50_000,
  duplicatePpm: 100_000,
  reorderPpm: 100_000,
};

/** Draws one message answering every yes/no choice `yes`, and lists what it drew and what it told. */
function draws(faults: LinkFaults, faultsOn: boolean, yes: (choice: MessageChoice) => boolean, decided?: number) {
  const log: string[] = [];
  const source = {
    chance(ppm: number, choice: MessageChoice) {
      if (ppm <= 0) return false;
      log.push(choice);
      return yes(choice);
    },
    between(min: number, max: number, choice: MessageChoice) {
      if (max > min) log.push(choice);
      return max;
    },
  };
  const on: MessageEffects = {
    lost: () => log.push("lost"),
    retransmitted: () => log.push("retransmitted"),
    beforeCopy: (copy) => {
      log.push(`copy ${copy}`);
      return decided ?? null;
    },
    delayed: (_copy, slow, delayMs) => log.push(`delayed ${slow ? "slow " : ""}${delayMs}`),
    sent: (_copy, _delayMs, mayOvertake) => log.push(`sent${mayOvertake ? " may overtake" : ""}`),
  };
  drawMessage(source, faults, faultsOn, on);
  return log;
}

describe("drawMessage (the layout of a message's choices)", () => {
  it("draws drop, duplicate, then per copy slow, delay and overtake, telling each step where it happens", () => {
    expect(draws(faulty, true, (c) => c !== "drop")).toEqual([
      "drop",
      "duplicate",
      "copy 0",
      "slow",
      "delay",
      "delayed slow 1500",
      "overtake",
      "sent may overtake",
      "copy 1",
      "slow",
      "delay",
      "delayed slow 1500",
      "overtake",
      "sent may overtake",
    ]);
    expect(draws(faulty, true, (c) => c === "drop")).toEqual(["drop", "lost"]);
  });

  it("draws only the delay once faults are off, and no choice a rate of zero or a one-value range rules out", () => {
    expect(draws(faulty, false, () => true)).toEqual(["copy 0", "delay", "delayed 5", "sent"]);
    const fixed = { ...faulty, dropPpm: 0, reorderPpm: 0, delay: { ...faulty.delay, maxMs: 1 } };
    expect(draws(fixed, true, () => false)).toEqual(["duplicate", "copy 0", "slow", "delayed 1", "sent"]);
  });

  it("lets a delivery policy decide a copy's delay in place of its slow and delay choices", () => {
    expect(draws(faulty, true, () => false, 700)).toEqual([
      "drop",
      "duplicate",
      "copy 0",
      "delayed slow 700",
      "overtake",
      "sent",
    ]);
  });
});
