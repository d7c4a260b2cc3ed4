import { describe, expect, it } from "vitest";
import {
  isLateCopy,
  MARKER_DIMENSIONS,
  type MarkerArrival,
  markerRisk,
  OFFSETS_MARKER_DIMENSIONS,
  type OffsetsMarkerArrival,
  parseStateKey,
  type ProtocolState,
  stateKey,
} from "../../src/oracle/protocol-coverage.js";

describe("protocol state keys", () => {
  const m: MarkerArrival = {
    release: "4.1",
    wire: "v2-tv2",
    arrival: "repeat",
    leaderTxn: "other",
    producer: "moved-on",
    rule: "legacy",
    result: "applied",
    role: "leader",
    leader: "same",
  };
  const marker = (arrival: MarkerArrival): ProtocolState => ({ kind: "marker", arrival });

  it("spell every dimension of a marker arrival after the release, in MARKER_DIMENSIONS order", () => {
    expect(stateKey(marker(m))).toBe(
      `marker@4.1 ${MARKER_DIMENSIONS.slice(1)
        .map((d) => `${d}=${m[d]}`)
        .join(" ")}`,
    );
    expect(stateKey({ kind: "event", event: "marker-request-refused" })).toBe("event marker-request-refused");
  });

  it("parse back to the same state; a key no state spells exactly so is none", () => {
    expect(parseStateKey(stateKey(marker(m)))).toEqual(marker(m));
    expect(parseStateKey("event producer-outcome-unknown")).toEqual({
      kind: "event",
      event: "producer-outcome-unknown",
    });
    const key = stateKey(marker(m));
    for (const bad of [
      "event no-such-event",
      key.replace("arrival=repeat", "arrival=again"),
      key.replace(" result=applied", ""),
      `${key} extra=1`,
      key.replace("marker@4.1", "marker@9.9"),
      key.replace("wire=v2-tv2 ", ""),
    ])
      expect(parseStateKey(bad)).toBeNull();
  });

  it("a late copy is a repeat after the producer moved on, its next transaction open, at that release and wire", () => {
    const at = { release: "4.1", wire: "v2-tv2" };
    expect(isLateCopy(marker(m), at)).toBe(true);
    expect(isLateCopy(marker({ ...m, result: "rejected", rule: "strict-tv2" }), at)).toBe(true);
    expect(isLateCopy(marker({ ...m, arrival: "first" }), at)).toBe(false);
    expect(isLateCopy(marker({ ...m, producer: "current" }), at)).toBe(false);
    expect(isLateCopy(marker(m), { release: "4.1", wire: "v1" })).toBe(false);
    expect(isLateCopy({ kind: "event", event: "marker-request-refused" }, at)).toBe(false);
  });

  it("rate how close an arrival came to a stale marker; events are 0", () => {
    expect(markerRisk(marker(m))).toBe(4);
    expect(markerRisk(marker({ ...m, result: "rejected" }))).toBe(3);
    expect(markerRisk({ kind: "event", event: "coordinator-initiated-abort" })).toBe(0);
  });

  it("a data-partition arrival keeps its key byte for byte (coverage files and campaigns of older runs still read)", () => {
    expect(stateKey(marker(m))).toBe(
      "marker@4.1 wire=v2-tv2 arrival=repeat leaderTxn=other producer=moved-on rule=legacy result=applied role=leader leader=same",
    );
  });

  describe("an arrival at an offsets partition (GroupCoordinatorService.completeTransaction)", () => {
    const o: OffsetsMarkerArrival = {
      release: "4.1",
      wire: "v1",
      arrival: "repeat",
      pending: "other",
      producer: "moved-on",
      rule: "legacy",
      marker: "COMMIT",
      result: "applied",
      role: "leader",
      leader: "same",
    };
    const offsets = (arrival: OffsetsMarkerArrival): ProtocolState => ({ kind: "offsets-marker", arrival });

    it("is its own state: offsets-marker@, its dimensions in OFFSETS_MARKER_DIMENSIONS order, parsed back", () => {
      const key = stateKey(offsets(o));
      expect(key).toBe(
        `offsets-marker@4.1 ${OFFSETS_MARKER_DIMENSIONS.slice(1)
          .map((d) => `${d}=${o[d]}`)
          .join(" ")}`,
      );
      expect(parseStateKey(key)).toEqual(offsets(o));
      for (const bad of [
        key.replace("pending=other", "pending=same"),
        key.replace("marker=COMMIT", "marker=commit"),
        key.replace("offsets-marker@", "marker@"),
        key.replace(" pending=other", ""),
      ])
        expect(parseStateKey(bad)).toBeNull();
      expect(parseStateKey("event offset-fetch-unstable")).toEqual({ kind: "event", event: "offset-fetch-unstable" });
    });

    it("rates a late copy over a newer transaction's pending offsets as a data partition's open records", () => {
      expect(markerRisk(offsets(o))).toBe(4);
      expect(markerRisk(offsets({ ...o, result: "rejected", rule: "strict-tv2" }))).toBe(3);
      expect(markerRisk(offsets({ ...o, pending: "none" }))).toBe(3);
      // The late-copy finder aims at data partitions only.
      expect(isLateCopy(offsets(o), { release: "4.1", wire: "v1" })).toBe(false);
    });
  });
});
