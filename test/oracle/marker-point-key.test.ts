import { describe, expect, it } from "vitest";
import {
  lateCopyKeyPrefix,
  MARKER_DIMENSIONS,
  type MarkerArrival,
  markerPointKey,
  parseMarkerPointKey,
} from "../../src/oracle/protocol-coverage.js";

describe("markerPointKey", () => {
  const m: MarkerArrival = {
    release: "4.1",
    wire: "v2-tv2",
    arrival: "repeat",
    leaderTxn: "other",
    producer: "moved-on",
    rule: "legacy",
    result: "applied",
  };

  it("spells every dimension after the release, in MARKER_DIMENSIONS order", () => {
    const key = markerPointKey(m);
    expect(key).toBe(
      `marker@4.1 ${MARKER_DIMENSIONS.slice(1)
        .map((d) => `${d}=${m[d]}`)
        .join(" ")}`,
    );
  });

  it("a late copy's key starts with lateCopyKeyPrefix of its release and wire; a first arrival's does not", () => {
    expect(markerPointKey(m).startsWith(lateCopyKeyPrefix("4.1", "v2-tv2"))).toBe(true);
    expect(markerPointKey({ ...m, arrival: "first" }).startsWith(lateCopyKeyPrefix("4.1", "v2-tv2"))).toBe(false);
    expect(markerPointKey(m).startsWith(lateCopyKeyPrefix("4.1", "v1"))).toBe(false);
  });

  it("parses back to the same arrival", () => {
    expect(parseMarkerPointKey(markerPointKey(m))).toEqual(m);
  });
});
