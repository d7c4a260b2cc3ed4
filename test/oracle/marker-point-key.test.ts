import { describe, expect, it } from "vitest";
import { MARKER_DIMENSIONS, type MarkerArrival, markerPointKey, parseMarkerPointKey } from "../../src/oracle/protocol-coverage.js";

describe("markerPointKey", () => {
  const m: MarkerArrival = { release: "4.1", wire: "v2-tv2", arrival: "repeat", leaderTxn: "other", producer: "moved-on", rule: "legacy", result: "applied" };

  it("spells every dimension after the release, in MARKER_DIMENSIONS order", () => {
    const key = markerPointKey(m);
    expect(key).toBe(`marker@4.1 ${MARKER_DIMENSIONS.slice(1).map((d) => `${d}=${m[d]}`).join(" ")}`);
  });

  it("parses back to the same arrival", () => {
    expect(parseMarkerPointKey(markerPointKey(m))).toEqual(m);
  });
});
