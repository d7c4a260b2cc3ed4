import { describe, expect, it } from "vitest";
import type { KafkaResponse } from "../../src/kafka/protocol.js";
import type { Inbound } from "../../src/kafka/server/broker-process.js";
import { ConnectionMute } from "../../src/kafka/server/connection-mute.js";

const OK: KafkaResponse = {
  api: "Produce",
  errorCode: 0,
  baseOffset: 0,
  errorMessage: null,
  currentLeader: { leaderId: null, leaderEpoch: -1 },
};

/** A fake step loop: scheduled actions run when `step()` is called, in order. */
function setup() {
  const due: (() => void)[] = [];
  const handled: string[] = [];
  const held = new Map<string, Inbound>();
  const mute = new ConnectionMute(
    { schedule: (_ms: number, action: () => void) => due.push(action) },
    (r) => {
      handled.push(`${r.connectionId}:${r.correlationId}`);
      held.set(`${r.connectionId}:${r.correlationId}`, r);
    },
    () => false,
  );
  const request = (connectionId: number, correlationId: number): Inbound =>
    ({
      connectionId,
      from: "p0",
      correlationId,
      body: { api: "Metadata" },
      respond: () => {},
      closeConnection: () => {},
    }) as unknown as Inbound;
  const step = () => {
    for (const action of due.splice(0)) action();
  };
  return { mute, handled, held, request, step };
}

describe("ConnectionMute (SocketServer: one request per connection at a time)", () => {
  it("reads a connection's next request only after the previous one was answered, in a later step", () => {
    const { mute, handled, held, request, step } = setup();
    mute.receive(request(1, 1));
    mute.receive(request(1, 2));
    mute.receive(request(2, 3));
    expect(handled).toEqual(["1:1", "2:3"]);
    held.get("1:1")?.respond(OK);
    expect(handled).toEqual(["1:1", "2:3"]);
    step();
    expect(handled).toEqual(["1:1", "2:3", "1:2"]);
    held.get("1:2")?.respond(OK);
    step();
    mute.receive(request(1, 4));
    expect(handled).toEqual(["1:1", "2:3", "1:2", "1:4"]);
  });

  it("drops the requests queued behind one answered by closing the connection", () => {
    const { mute, handled, held, request, step } = setup();
    mute.receive(request(1, 1));
    mute.receive(request(1, 2));
    held.get("1:1")?.closeConnection("unparseable");
    step();
    expect(handled).toEqual(["1:1"]);
  });
});
