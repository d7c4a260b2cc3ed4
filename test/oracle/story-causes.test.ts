import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { replay } from "../../src/fuzz/seeds/replay.js";
import { renderStory } from "../../src/oracle/story.js";
import type { ViolationKind } from "../../src/oracle/violation.js";

// Issue 30 item 1: a story is built from the violation's causal chain. For each kind of violation
// a shipped seed has, the story holds the cause (the feature change, the request a fault acted on,
// the verification that failed) in order, and no fault on a request the violation does not depend on.

const SEEDS = join(import.meta.dirname, "../../seeds");

function storyOf(file: string, kind: ViolationKind): string[] {
  const r = replay(join(SEEDS, file));
  const v = r.violations.find((x) => x.kind === kind);
  if (!v) throw new Error(`no ${kind} in ${file}`);
  return renderStory(r.trace, v);
}

/** Each pattern matches a line after the previous pattern's line; returns the matches. */
function inOrder(story: string[], steps: RegExp[]): RegExpExecArray[] {
  const found: RegExpExecArray[] = [];
  let at = 0;
  for (const step of steps) {
    const i = story.findIndex((line, k) => k >= at && step.test(line));
    expect(i, `${step} after line ${at} in\n${story.join("\n")}`).toBeGreaterThanOrEqual(0);
    found.push(step.exec(story[i] as string) as RegExpExecArray);
    at = i + 1;
  }
  return found;
}

describe("the story holds the violation's cause", () => {
  it("fatal-error (tv-downgrade-under-load): the downgrade, the Produce v11, its failed verification, the EndTxn's answer", () => {
    const story = storyOf("tv-downgrade-under-load.tape-dbd64d5c3fc75eed.json", "fatal-error");
    const [, , produce] = inOrder(story, [
      /the controller finalizes transaction\.version 1/,
      /p0 takes transaction\.version 1/,
      /p0 sends Produce v11 orders-0 .* for p0\.t3 \[request (\d+)\]/,
      /broker-0 fails the verification of p0\.t3's Produce at orders-0 .*: TRANSACTION_ABORTABLE/,
      /p0 enters an abortable error for p0\.t3/,
      /p0 sends EndTxn v4 ABORT .* \[request \d+\]/,
      /answers request \d+ \(EndTxn of p0\.t3\): INVALID_TXN_STATE/,
      /=> fatal-error/,
    ]);
    expect(story.join("\n")).toContain(`answers request ${produce?.[1]} (Produce of p0.t3): TRANSACTION_ABORTABLE`);
    // The faults of this run acted on other transactions' requests: none is in the story.
    expect(story.filter((l) => /fault:|closes the connection/.test(l))).toEqual([]);
    expect(story.length).toBeLessThanOrEqual(15);
  });

  it("stale-marker (kip-1228-gap): the marker request, the fault on it, its re-send, the stale copy's acceptance", () => {
    const story = storyOf("kip-1228-gap.tape-608bd50dfa1025d1.json", "stale-marker");
    const [send] = inOrder(story, [
      /sends marker #\d+ to broker-2: WriteTxnMarkers v1 .* \[request (\d+)\]/,
      /fault: request (\d+) \(WriteTxnMarkers\) is delayed/,
      /closes the connection to broker-2: request \d+ timed out/,
      /sends marker #\d+ again \(copy 2\)/,
      /accepts p0\.t1's COMMIT marker at orders-5 .*legacy rule 1 >= 1/,
      /=> stale-marker/,
    ]);
    expect(story.join("\n")).toContain(`fault: request ${send?.[1]} (WriteTxnMarkers)`);
    // Retried answers (NOT_ENOUGH_REPLICAS) change nothing: they are not in the story.
    expect(story.join("\n")).not.toContain("NOT_ENOUGH_REPLICAS");
  });

  it("premature-read (kafka-17754): the previous transaction's EndTxn, delayed, taken as the end of the next", () => {
    const story = storyOf("kafka-17754.tape-c3dde61c219a1d37.json", "premature-read");
    const [send] = inOrder(story, [
      /p0 sends EndTxn v4 COMMIT .* for p0\.t1 \[request (\d+)\]/,
      /fault: request \d+ \(EndTxn\) is delayed/,
      /p0 begins p0\.t2/,
      /takes request \d+ \(p0's EndTxn for p0\.t1, arriving late\) as the end of p0\.t2/,
      /writes PrepareCommit for p0\.t2/,
      /=> premature-read/,
    ]);
    expect(story.join("\n")).toContain(`takes request ${send?.[1]} `);
  });

  it("hanging-transaction (kip-1228-4.2.0): the v2 marker request a 4.1 broker cannot parse, its loop told once", () => {
    const story = storyOf("kip-1228-4.2.0.tape-fa88b86300a2506a.json", "hanging-transaction");
    inOrder(story, [
      /sends marker #\d+ to broker-2: WriteTxnMarkers v2/,
      /closes the connection to broker-2: closed by broker-2: WriteTxnMarkers v2 is not supported/,
      /\.\.\. the same 2 steps \d+ more times, until t=\d+ms/,
      /=> hanging-transaction/,
    ]);
    expect(story.length).toBeLessThanOrEqual(20);
  });

  for (const kind of ["outcome-mismatch", "lost-write", "torn-transaction"] as const)
    it(`${kind} (admin-abort-hanging): the operator's abort that decided the partition`, () => {
      const story = storyOf("admin-abort-hanging.tape-131e385c1950ef20.json", kind);
      inOrder(story, [
        /broker-1 writes PrepareCommit for p0\.t1/,
        /admin describes the producers of orders-2: p0\.t1 open there/,
        /admin sends Admin\.abortTransaction's ABORT marker for p0\.t1 to broker-2 at orders-2/,
        /broker-2 accepts p0\.t1's ABORT marker at orders-2/,
        new RegExp(`=> ${kind}`),
      ]);
    });

  it("unclean-election: the unclean leader change and the truncation that lost the records", () => {
    const story = storyOf("unclean-election.tape-8cc08f1f6aef0adb.json", "unclean-election");
    inOrder(story, [
      /broker-2 appends p0\.t1's record at orders-2/,
      /leader change: orders-2 moves from broker-2 to broker-0 .*unclean/,
      /broker-2 truncates orders-2/,
      /=> unclean-election/,
    ]);
  });

  it("every fault in every shipped seed's story acts on a request the story showed before it", () => {
    for (const file of readdirSync(SEEDS).filter((f) => f.includes(".tape-"))) {
      const r = replay(join(SEEDS, file));
      const v = r.violations[0];
      if (!v) continue;
      const story = renderStory(r.trace, v);
      const sent = new Set<string>();
      for (const line of story) {
        const acted = /(?:fault|script): .*request (\d+)/.exec(line);
        if (acted) expect(sent.has(acted[1] as string), `${file}: ${line}\n${story.join("\n")}`).toBe(true);
        for (const m of line.matchAll(/\[request (\d+)\]/g)) sent.add(m[1] as string);
      }
      expect(
        story.some((l) => /fault: (that|the duplicate)/.test(l)),
        file,
      ).toBe(false);
    }
  });
});
