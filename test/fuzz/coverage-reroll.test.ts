import { describe, expect, it } from "vitest";
import { rerollTape } from "../../src/fuzz/search/coverage-corpus.js";
import { generationSize } from "../../src/fuzz/search/coverage-search.js";

const tape = {
  "workload:p0": [1, 2, 3, 4],
  "workload:start": [5, 6],
  "net:tc-0>broker-2": [0, 1, 0, 7, 0, 9],
  "net:broker-2>tc-0": [0, 3, 0],
  txnlog: [2, 2, 2],
};
const point = { from: { "workload:p0": 2, "workload:start": 2, "net:tc-0>broker-2": 3, "net:broker-2>tc-0": 1, txnlog: 1 }, link: { from: "tc-0", to: "broker-2" } };

describe("coverage re-roll scopes", () => {
  it("all: every stream is cut where it stood when the state began", () => {
    expect(rerollTape(tape, point, "all")).toEqual({ "workload:p0": [1, 2], "workload:start": [5, 6], "net:tc-0>broker-2": [0, 1, 0], "net:broker-2>tc-0": [0], txnlog: [2] });
  });

  it("clients: only the workload streams are cut; the network and the brokers replay in full", () => {
    expect(rerollTape(tape, point, "clients")).toEqual({ ...tape, "workload:p0": [1, 2], "workload:start": [5, 6] });
  });

  it("link: only the marker copy's own link is cut (not its responses, not the workload)", () => {
    expect(rerollTape(tape, point, "link")).toEqual({ ...tape, "net:tc-0>broker-2": [0, 1, 0] });
  });

  it("a stream the state's positions do not name was not used yet: cut to nothing", () => {
    expect(rerollTape({ ...tape, "consumer:c0": [4, 4] }, point, "all")["consumer:c0"]).toEqual([]);
  });

  it("the kept tape is not changed", () => {
    const before = JSON.stringify(tape);
    rerollTape(tape, point, "all");
    rerollTape(tape, point, "link");
    expect(JSON.stringify(tape)).toBe(before);
  });
});

describe("coverage generations", () => {
  it("grow 1, 1, 2, 2, 4, 4, then stay at 8: learning after each early run, full batches later", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 50].map(generationSize)).toEqual([1, 1, 2, 2, 4, 4, 8, 8, 8]);
  });
});
