import { describe, expect, it } from "vitest";
import {
  isLateCopy,
  MARKER_DIMENSIONS,
  type MarkerArrival,
  markerRisk,
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
});
