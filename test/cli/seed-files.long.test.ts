import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { replaySeed } from "../../src/fuzz/seeds/replay.js";
import { parseSeedFile, renderSeedFile, type SeedFile } from "../../src/fuzz/seeds/seed-file.js";
import { eosfuzz } from "./cli-helpers.js";

/** A copy of a seed file with its text changed, in a fresh directory. */
function variant(file: string, change: (text: string) => string): string {
  const dir = mkdtempSync(join(tmpdir(), "eosfuzz-variant-"));
  const out = join(dir, file.split("/").pop() as string);
  writeFileSync(out, change(readFileSync(file, "utf8")));
  return out;
}

/** Change one byte of the tape: the first choice of its first stream, one digit up. */
function bumpFirstTapeByte(text: string): string {
  // The first digit of the first stream that made a choice (streams that made none are empty arrays).
  const tapeAt = text.indexOf('"tape": {');
  const at = tapeAt + (/\[\s*\d/.exec(text.slice(tapeAt))?.index ?? 0);
  const digitAt = at + (/\d/.exec(text.slice(at))?.index ?? 0);
  const digit = Number(text[digitAt]);
  return text.slice(0, digitAt) + String((digit + 1) % 10) + text.slice(digitAt + 1);
}

describe("run --save-failures, seed files and replay", () => {
  const dir = join(mkdtempSync(join(tmpdir(), "eosfuzz-seeds-")), "saved");
  let files: string[] = [];
  let report: { failingSeeds: number[]; seedFiles: string[]; shrunk?: { savedTo: string } };

  beforeAll(() => {
    const r = eosfuzz(["run", "--scenario", "tv1-legacy", "--seeds", "500", "--save-failures", dir, "--json"]);
    expect(r.code).toBe(0);
    report = JSON.parse(r.stdout);
    files = readdirSync(dir)
      .map((f) => join(dir, f))
      .sort();
  });

  it("writes one seed file per distinct failing seed, each standing alone", () => {
    expect(report.failingSeeds.length).toBeGreaterThan(5);
    // One per failing seed, plus the shrunk first failure (a tape-only file).
    expect(report.shrunk?.savedTo).toMatch(/tv1-legacy\.tape-[0-9a-f]{16}\.json$/);
    expect(files).toHaveLength(report.failingSeeds.length + 1);
    expect([...report.seedFiles].sort()).toEqual(files);
    const seed: SeedFile = JSON.parse(readFileSync(files.find((f) => f.includes(".seed-")) as string, "utf8"));
    expect(seed).toMatchObject({
      format: "eosfuzz-seed",
      tool: { name: "eosfuzz", version: expect.any(String) },
      scenario: {
        name: "tv1-legacy",
        contentHash: expect.stringMatching(/^[0-9a-f]{16}$/),
        definition: { name: "tv1-legacy", cluster: expect.any(Object) },
      },
      seed: expect.any(Number),
      traceHash: expect.stringMatching(/^[0-9a-f]{16}$/),
      replay: `eosfuzz replay ${files[0]}`,
    });
    expect(Object.values(seed.tape).flat().length).toBeGreaterThan(1000);
    expect(Object.keys(seed.tape)).toContain("workload:start");
    expect(seed.violations[0]).toMatchObject({
      kind: "stale-marker",
      partition: expect.any(String),
      broker: expect.any(String),
      brokerRelease: "3.x",
    });
    expect(report.failingSeeds).toContain(seed.seed);
  });

  it("every saved seed replays with exit 0 and its recorded trace hash", () => {
    const empty = mkdtempSync(join(tmpdir(), "eosfuzz-noscn-"));
    const r = eosfuzz(["regress", "--scenarios", empty, "--seeds", dir, "--json"]);
    expect(r.code).toBe(0);
    const rows: { file: string; result: string; detail: string }[] = JSON.parse(r.stdout).rows;
    expect(rows).toHaveLength(files.length);
    for (const row of rows) {
      const recorded = JSON.parse(readFileSync(row.file, "utf8")).traceHash;
      expect(row).toMatchObject({ result: "pass", detail: `reproduced, trace ${recorded}` });
    }
  });

  it("replay --json prints one object with the contract's fields; exit 0", () => {
    const file = files[0] as string;
    const r = eosfuzz(["replay", file, "--json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    const recorded = JSON.parse(readFileSync(file, "utf8"));
    expect(out).toMatchObject({
      reproduced: true,
      status: "reproduced",
      traceHash: recorded.traceHash,
      recordedTraceHash: recorded.traceHash,
      events: recorded.traceEvents,
    });
    expect(out.violations[0]).toMatchObject({ kind: "stale-marker", explanation: expect.any(Array) });
    expect(out.trace).toBeUndefined();
  });

  it("replay prints the causal chain, and with --trace a per-node event list of the asked range", () => {
    const r = eosfuzz(["replay", files[0] as string, "--from-event", "40", "--to-event", "49"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/REPRODUCED trace [0-9a-f]{16}/);
    expect(r.stdout).toMatch(/stale-marker {2}stale (COMMIT|ABORT) marker for p\d\.t\d+/);
    expect(r.stdout).toMatch(/legacy rule \(marker epoch >= producer epoch\) passed/);
    expect(r.stdout).toMatch(/trace, events 40\.\.49 of \d+/);
    const eventLines = r.stdout.split("\n").filter((l) => /^\s+#\d+ t=\d+ms/.test(l));
    expect(eventLines.map((l) => Number(/#(\d+)/.exec(l)?.[1]))).toEqual([40, 41, 42, 43, 44, 45, 46, 47, 48, 49]);
    // One column per node: every event line has exactly one filled dot.
    for (const line of eventLines) expect(line.match(/●/g)).toHaveLength(1);
  });

  it("a seed file with one byte of its tape changed replays with exit 1 and names the first divergent event", () => {
    const changed = variant(files[0] as string, bumpFirstTapeByte);
    const r = eosfuzz(["replay", changed]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /the hashes part at event #\d+ \(compared event by event with the recorded run, rebuilt from seed \d+\)/,
    );
    expect(r.stdout).toMatch(/ {4}replay: {3}#\d+ t=\d+ms /);
    expect(r.stdout).toMatch(/ {4}recorded: #\d+ t=\d+ms /);
    const json = JSON.parse(eosfuzz(["replay", changed, "--json"]).stdout);
    expect(json.reproduced).toBe(false);
    expect(["diverged", "trace-changed"]).toContain(json.status);
    expect(json.traceHash).not.toBe(json.recordedTraceHash);
    expect(json.divergence.eventIndex).toBeGreaterThanOrEqual(0);
    expect(json.divergence.replayed.hash).not.toBe(json.divergence.recorded.hash);
  });

  it("a truncated seed file is exit 2 and one line naming the file", () => {
    const cut = variant(files[0] as string, (t) => t.slice(0, Math.floor(t.length / 2)));
    const r = eosfuzz(["replay", cut]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^eosfuzz: ${cut.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\d+:\\d+: expected a complete JSON seed file, found it cut short`,
      ),
    );
    expect(r.stdout).toBe("");
  });

  it("a seed file with a corrupt field is exit 2 and one line naming the field", () => {
    const bad = variant(files[0] as string, (t) =>
      t.replace(/"traceHash": "[0-9a-f]{16}"/, '"traceHash": "not-a-hash"'),
    );
    const r = eosfuzz(["replay", bad]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/:\d+:\d+ traceHash: .*found "not-a-hash"/);
  });

  it("violation reproduced but trace changed: exit 1, or 0 with --accept-changed-trace", () => {
    // Change the tape near its end, after the violation: the stale marker still lands, the trace differs.
    const file = files[0] as string;
    const original: SeedFile = JSON.parse(readFileSync(file, "utf8"));
    let changed: string | null = null;
    const candidates = Object.keys(original.tape).flatMap((stream) => [1, 2, 3].map((back) => ({ stream, back })));
    for (const { stream, back } of candidates) {
      const choices = [...(original.tape[stream] as number[])];
      const i = choices.length - back;
      if (i < 0) continue;
      choices[i] = (choices[i] as number) + 1;
      const text = renderSeedFile({ ...original, tape: { ...original.tape, [stream]: choices } });
      if (replaySeed(parseSeedFile(text, "x.json")).status === "trace-changed") {
        changed = variant(file, () => text);
        break;
      }
    }
    expect(changed).not.toBeNull();
    const r = eosfuzz(["replay", changed as string, "--json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      status: "trace-changed",
      reproduced: false,
      violationReproduced: true,
    });
    expect(eosfuzz(["replay", changed as string, "--accept-changed-trace"]).code).toBe(0);
  });

  it("a tape-only seed file (no seed, as shrinking writes them) names the divergent event from its fingerprints", () => {
    const original: SeedFile = JSON.parse(readFileSync(files[0] as string, "utf8"));
    const tapeOnly = { ...original, seed: null };
    expect(replaySeed(parseSeedFile(renderSeedFile(tapeOnly), "t.json")).status).toBe("reproduced");
    const withSeed = replaySeed(parseSeedFile(bumpFirstTapeByte(renderSeedFile(original)), "a.json"));
    const fromFingerprints = replaySeed(parseSeedFile(bumpFirstTapeByte(renderSeedFile(tapeOnly)), "b.json"));
    expect(fromFingerprints.divergence?.how).toBe("from the recorded per-event hash fingerprints");
    expect(fromFingerprints.divergence?.eventIndex).toBe(withSeed.divergence?.eventIndex);
  });

  it("replay of a missing file is exit 2 and one line", () => {
    const r = eosfuzz(["replay", join(dir, "nope.json")]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/nope\.json: expected a seed file, found no such file$/);
    mkdirSync(join(dir, "..", "empty"), { recursive: true });
  });
});
