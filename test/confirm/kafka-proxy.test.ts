import { connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { FaultRule } from "../../src/confirm/proxy/fault-rules.js";
import { FrameReader, framed } from "../../src/confirm/proxy/frames.js";
import { KafkaProxy, type ProxyEvent } from "../../src/confirm/proxy/kafka-proxy.js";
import { readRequestInfo } from "../../src/confirm/proxy/request-info.js";
import {
  decodeWriteTxnMarkersResponse,
  encodeWriteTxnMarkersRequest,
  encodeWriteTxnMarkersResponse,
  type WritableTxnMarker,
} from "../../src/kafka/wire/write-txn-markers.js";

// The fault proxy between a client and a fake broker that answers WriteTxnMarkers with eosfuzz's own
// codec: what passes, what each fault does to the request and to its answer, and that every firing
// is counted.

interface Received {
  conn: number;
  correlationId: number;
  producerId: number;
}

/** A broker stand-in: answers every WriteTxnMarkers NONE (or `errorCode`) and records what it got, per connection. */
async function fakeBroker(errorCode = 0): Promise<{ server: Server; port: number; received: Received[] }> {
  const received: Received[] = [];
  let conns = 0;
  const server = createServer((socket) => {
    const conn = ++conns;
    const reader = new FrameReader();
    socket.on("data", (chunk: Buffer) => {
      for (const frame of reader.push(chunk)) {
        const info = readRequestInfo(frame);
        const markers = info.markers ?? [];
        received.push({ conn, correlationId: info.correlationId, producerId: markers[0]?.producerId ?? -1 });
        const body = encodeWriteTxnMarkersResponse(
          info.apiVersion,
          info.correlationId,
          markers.map((m) => ({
            producerId: m.producerId,
            topics: m.topics.map((t) => ({
              name: t.name,
              partitions: t.partitionIndexes.map((p) => ({ partitionIndex: p, errorCode })),
            })),
          })),
        );
        socket.write(framed(body));
      }
    });
    socket.on("error", () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { server, port: address.port, received };
}

function marker(producerId: number, commit = true): WritableTxnMarker {
  return {
    producerId,
    producerEpoch: 1,
    transactionResult: commit,
    topics: [{ name: "orders", partitionIndexes: [0] }],
    coordinatorEpoch: 0,
    transactionVersion: 0,
  };
}

/** A coordinator's marker channel stand-in: sends requests, collects responses by correlation id. */
class Client {
  readonly socket: Socket;
  readonly responses: number[] = [];
  closed = false;
  private readonly reader = new FrameReader();

  constructor(port: number) {
    this.socket = connect(port, "127.0.0.1");
    this.socket.on("data", (chunk: Buffer) => {
      for (const frame of this.reader.push(chunk))
        this.responses.push(decodeWriteTxnMarkersResponse(1, frame).correlationId);
    });
    this.socket.on("close", () => {
      this.closed = true;
    });
    this.socket.on("error", () => {});
  }

  send(correlationId: number, m: WritableTxnMarker): void {
    const body = encodeWriteTxnMarkersRequest(
      { apiVersion: 1, correlationId, clientId: "broker-2-txn-marker-sender" },
      [m],
    );
    this.socket.write(framed(body));
  }
}

async function until(check: () => boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

async function setup(errorCode = 0) {
  const broker = await fakeBroker(errorCode);
  const events: ProxyEvent[] = [];
  const proxy = await KafkaProxy.start({
    broker: "broker-0",
    listener: "INTERNAL",
    upstreamPort: broker.port,
    log: (e) => events.push(e),
  });
  const client = new Client(proxy.port);
  cleanup.push(
    () => client.socket.destroy(),
    () => proxy.close(),
    () => new Promise<void>((resolve) => broker.server.close(() => resolve())),
  );
  return { broker, proxy, client, events };
}

function rule(action: FaultRule["action"], match: Partial<FaultRule["match"]> = {}, nth = 1): FaultRule {
  return { id: "r1", broker: "broker-0", listener: "INTERNAL", match: { apiKey: 27, ...match }, nth, action };
}

describe("the fault proxy", () => {
  it("passes requests and responses unchanged when no rule fires", async () => {
    const { broker, client, proxy, events } = await setup();
    proxy.arm(rule({ kind: "drop" }, { producerId: 99 }));
    client.send(7, marker(5));
    await until(() => client.responses.length === 1);
    expect(client.responses).toEqual([7]);
    expect(broker.received.map((r) => r.correlationId)).toEqual([7]);
    expect(events.filter((e) => e.kind === "fault")).toEqual([]);
    expect(proxy.counts.get("WriteTxnMarkers")).toBe(1);
  });

  it("holds the n-th matching request and delivers it on a connection of its own when released", async () => {
    const { broker, client, proxy } = await setup(47);
    const armed = proxy.arm(rule({ kind: "hold" }, { producerId: 5, result: "COMMIT" }, 2));
    client.send(1, marker(5, false)); // an ABORT: does not match
    client.send(2, marker(5)); // the first matching one: passes
    await until(() => client.responses.length === 2);
    client.send(3, marker(5)); // the second: held
    await new Promise((r) => setTimeout(r, 100));
    expect(client.responses).toEqual([1, 2]);
    expect(broker.received.map((r) => r.correlationId)).toEqual([1, 2]);
    expect(armed.firings.map((f) => f.request.correlationId)).toEqual([3]);
    expect(proxy.isHolding("r1")).toBe(true);
    const { errors } = await proxy.release("r1");
    expect(errors).toEqual([{ partition: "orders-0", producerId: 5, errorCode: 47 }]);
    // Delivered on a second connection; its answer went to nobody.
    expect(broker.received.at(-1)).toEqual({ conn: 2, correlationId: 3, producerId: 5 });
    await new Promise((r) => setTimeout(r, 50));
    expect(client.responses).toEqual([1, 2]);
    await expect(proxy.release("r1")).rejects.toThrow(/holds nothing/);
  });

  it("two holds of the same copies, the 1st and the 2nd, both fire: every rule counts every request it matches", async () => {
    const { broker, client, proxy } = await setup();
    const first = proxy.arm({ ...rule({ kind: "hold" }, { producerId: 5, result: "COMMIT" }, 1), id: "first" });
    const second = proxy.arm({ ...rule({ kind: "hold" }, { producerId: 5, result: "COMMIT" }, 2), id: "second" });
    client.send(1, marker(5)); // held by "first"
    // The coordinator re-sends each copy on a new connection after its request timed out.
    const again = new Client(proxy.port);
    const third = new Client(proxy.port);
    cleanup.push(
      () => again.socket.destroy(),
      () => third.socket.destroy(),
    );
    await until(() => proxy.isHolding("first"));
    again.send(2, marker(5)); // held by "second"
    await until(() => proxy.isHolding("second"));
    third.send(3, marker(5)); // passes
    await until(() => third.responses.length === 1);
    expect(first.firings.map((f) => f.request.correlationId)).toEqual([1]);
    expect(second.firings.map((f) => f.request.correlationId)).toEqual([2]);
    expect(broker.received.map((r) => r.correlationId)).toEqual([3]);
  });

  it("delays a request, and the connection's later requests wait behind it", async () => {
    const { client, proxy } = await setup();
    proxy.arm(rule({ kind: "delay", ms: 300 }));
    const t0 = Date.now();
    client.send(1, marker(5));
    client.send(2, marker(6));
    await until(() => client.responses.length === 2);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(client.responses).toEqual([1, 2]);
  });

  it("drops a request: both connections close and the broker never sees it", async () => {
    const { broker, client, proxy, events } = await setup();
    proxy.arm(rule({ kind: "drop" }, { producerId: 6 }));
    client.send(1, marker(5));
    await until(() => client.responses.length === 1);
    client.send(2, marker(6));
    await until(() => client.closed);
    expect(broker.received.map((r) => r.correlationId)).toEqual([1]);
    expect(events.filter((e) => e.kind === "fault").length).toBe(1);
  });

  it("duplicates a request: the broker answers twice, the client hears once, and the next answer is the next request's", async () => {
    const { broker, client, proxy, events } = await setup();
    proxy.arm(rule({ kind: "duplicate" }));
    client.send(1, marker(5));
    await until(() => broker.received.length === 2);
    client.send(2, marker(5));
    await until(() => client.responses.length === 2);
    await new Promise((r) => setTimeout(r, 50));
    expect(broker.received.map((r) => r.correlationId)).toEqual([1, 1, 2]);
    expect(client.responses).toEqual([1, 2]);
    const swallowed = events.filter((e) => e.kind === "marker-response" && e.swallowed);
    expect(swallowed.length).toBe(1);
  });

  it("keeps the connection to the broker until the answers of requests already sent came back", async () => {
    const { broker, client, proxy } = await setup();
    proxy.arm(rule({ kind: "delay", ms: 200 }));
    client.send(1, marker(5));
    // The client closes while the request is still in the proxy (as a timed-out coordinator does).
    client.socket.end();
    await until(() => client.closed);
    await until(() => broker.received.length === 1);
    expect(broker.received[0]?.correlationId).toBe(1);
  });
});
