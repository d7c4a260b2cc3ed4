import { describe, expect, it } from "vitest";
import { CORPUS_FILE_FORMAT, CORPUS_FILE_VERSION, parseCorpusFile } from "../../src/fuzz/search/corpus-file.js";

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
    expect(parseCorpusFile(file(), "c.json", owner)).toEqual([
      { ...entry, points: entry.points.map((p) => ({ ...p, state })) },
    ]);
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
    expect(() => parseCorpusFile(file({ formatVersion: 2 }), "c.json", owner)).toThrow(/formatVersion/);
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
