import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CORPUS_FILE_FORMAT,
  CORPUS_FILE_VERSION,
  corpusFile,
  parseCorpusFile,
} from "../../src/fuzz/search/corpus-file.js";

const owner = { name: "kip-1228-gap", contentHash: "42706c7093d4a538", overrides: "{}" };
const entry = {
  mix: [1, 0],
  tape: { "workload:p0": [1, 2], "net:tc-0>broker-2": [0, 1] },
  points: [{ key: "event marker-request-refused", count: 1, from: { "workload:p0": 1 }, link: null }],
};
const file = (over: Record<string, unknown> = {}) =>
  JSON.stringify(
    {
      format: CORPUS_FILE_FORMAT,
      formatVersion: CORPUS_FILE_VERSION,
      tool: { name: "eosfuzz", version: "0.1.0" },
      scenario: owner,
      entries: [entry],
      ...over,
    },
    null,
    1,
  );

describe("corpus file", () => {
  it("reads back what it holds", () => {
    const state = { kind: "event", event: "marker-request-refused" };
    expect(parseCorpusFile(file(), "c.json", owner)).toEqual({
      entries: [{ ...entry, points: entry.points.map((p) => ({ ...p, state })) }],
      aims: [],
      groups: [],
    });
    // A version 1 file (before targets were kept) still reads.
    expect(parseCorpusFile(file({ formatVersion: 1 }), "c.json", owner).entries).toHaveLength(1);
  });

  it("keeps the late-copy targets not aimed at yet and what aims paid, through a save and a load", () => {
    const faults = {
      delay: { minMs: 1, maxMs: 5, slowPpm: 150_000, slowMinMs: 250, slowMaxMs: 1500 },
      dropPpm: 0,
      duplicatePpm: 0,
      reorderPpm: 0,
      model: "tcp" as const,
    };
    const target = {
      stream: "net:tc-0>broker-2",
      at: 1,
      faults,
      delayMs: 300,
      release: "4.1",
      wire: "v1",
      how: "first-copy" as const,
    };
    const aims = [{ tape: entry.tape, targets: [target] }];
    const groups = [{ release: "4.1", wire: "v1", aimed: 3, paid: 2 }];
    const path = join(mkdtempSync(join(tmpdir(), "eosfuzz-corpus-file-")), "c.json");
    const store = corpusFile(path, owner);
    const state = { kind: "event", event: "marker-request-refused" };
    store.save({ entries: [{ ...entry, points: entry.points.map((p) => ({ ...p, state })) }], aims, groups });
    expect(store.load()).toEqual({
      entries: [{ ...entry, points: entry.points.map((p) => ({ ...p, state })) }],
      aims,
      groups,
    });
    const text = readFileSync(path, "utf8");
    expect(() => parseCorpusFile(text.replace('"paid":2', '"paid":4'), "c.json", owner)).toThrow(
      /aimGroups\[0\]: expected paid <= aimed/,
    );
    expect(() => parseCorpusFile(text.replace('"how":"first-copy"', '"how":"late"'), "c.json", owner)).toThrow(
      /aims\[0\]\.targets\[0\]\.how/,
    );
  });

  it("names the field, its line and what was expected for a damaged entry", () => {
    const bad = file({ entries: [{ ...entry, tape: { "workload:p0": [1, -2] } }] });
    expect(() => parseCorpusFile(bad, "c.json", owner)).toThrow(
      /^c\.json:\d+:\d+ entries\[0\]\.tape\.workload:p0\[1\]: expected .*>= ?0/,
    );
    const unknown = file({ entries: [{ ...entry, points: [{ ...entry.points[0], key: "event no-such-event" }] }] });
    expect(() => parseCorpusFile(unknown, "c.json", owner)).toThrow(
      /^c\.json:\d+:\d+ entries\[0\]\.points\[0\]\.key: expected the key of a protocol state/,
    );
  });

  it("refuses another file format, a newer version, or a mutant's corpus for the plain scenario", () => {
    expect(() => parseCorpusFile(JSON.stringify({ format: "eosfuzz-seed" }), "s.json", owner)).toThrow(
      /s\.json:1:1 format: expected "eosfuzz-corpus" \(an eosfuzz coverage corpus\), found "eosfuzz-seed"/,
    );
    expect(() => parseCorpusFile(file({ formatVersion: CORPUS_FILE_VERSION + 1 }), "c.json", owner)).toThrow(
      /formatVersion/,
    );
    expect(() =>
      parseCorpusFile(
        file({ scenario: { ...owner, overrides: '{"strictTv2MarkerEpochCheck":false}' } }),
        "c.json",
        owner,
      ),
    ).toThrow(
      /expected a corpus of kip-1228-gap 42706c7093d4a538 \(the scenario as loaded now\), found one of kip-1228-gap 42706c7093d4a538 with overrides \{"strictTv2MarkerEpochCheck":false\}/,
    );
  });
});
