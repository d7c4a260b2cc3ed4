import { connect, createServer, type Server, type Socket } from "node:net";
import { ArmedRule, type FaultFiring, type FaultRule, type RequestSummary, summarize } from "./fault-rules.js";
import { FrameReader, framed } from "./frames.js";
import { apiName, readMarkerResponse, readRequestInfo, type RequestInfo } from "./request-info.js";

/** What the proxy logs: every WriteTxnMarkers and EndTxn request and response, and every fault. */
export type ProxyEvent =
  | { kind: "request"; atMs: number; broker: string; listener: string; conn: number; request: RequestSummary }
  | {
      kind: "marker-response";
      atMs: number;
      broker: string;
      listener: string;
      conn: number;
      correlationId: number;
      /** The response went to nobody: a duplicate's extra answer, or a released copy's. */
      swallowed: boolean;
      errors: { partition: string; producerId: number; errorCode: number }[];
    }
  | { kind: "fault"; atMs: number; broker: string; listener: string; conn: number; firing: FaultFiring }
  | { kind: "released"; atMs: number; broker: string; listener: string; ruleId: string; request: RequestSummary }
  | { kind: "closed"; atMs: number; broker: string; listener: string; conn: number; by: "client" | "broker" | "drop" };

/** Requests whose every copy the log keeps (the rest are only counted). */
const LOGGED_APIS = new Set([26, 27]);

interface Pending {
  info: RequestInfo;
  /** false: the response is swallowed (the extra copy of a duplicate). */
  forward: boolean;
}

/** A held request: out of its connection, waiting for the plan to release it. */
interface Held {
  frame: Buffer;
  info: RequestInfo;
  conn: number;
}

/**
 * A fault-injecting proxy in front of one listener of one broker, on 127.0.0.1. The broker
 * advertises the proxy's port, so every connection to that listener (other brokers' replication and
 * marker requests on INTERNAL, clients on CLIENT) passes through it. Each client connection gets a
 * connection of its own to the broker; frames pass unchanged unless an armed rule fires.
 */
export class KafkaProxy {
  private server: Server | null = null;
  private readonly rules: ArmedRule[] = [];
  private readonly held = new Map<string, Held>();
  private readonly sockets = new Set<Socket>();
  private nextConn = 1;
  /** Requests seen, by API name. */
  readonly counts = new Map<string, number>();

  private constructor(
    readonly broker: string,
    readonly listener: "INTERNAL" | "CLIENT",
    readonly upstreamPort: number,
    private readonly log: (e: ProxyEvent) => void,
    readonly port: number,
  ) {}

  static async start(options: {
    broker: string;
    listener: "INTERNAL" | "CLIENT";
    upstreamPort: number;
    log: (e: ProxyEvent) => void;
  }): Promise<KafkaProxy> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("the proxy has no port");
    const proxy = new KafkaProxy(options.broker, options.listener, options.upstreamPort, options.log, address.port);
    proxy.server = server;
    server.on("connection", (down) => proxy.accept(down));
    return proxy;
  }

  /** Arm a rule: from now on it counts matching requests and fires on its n-th. */
  arm(rule: FaultRule): ArmedRule {
    const armed = new ArmedRule(rule);
    this.rules.push(armed);
    return armed;
  }

  disarm(ruleId: string): void {
    const i = this.rules.findIndex((r) => r.rule.id === ruleId);
    if (i >= 0) this.rules.splice(i, 1);
  }

  isHolding(ruleId: string): boolean {
    return this.held.has(ruleId);
  }

  private track(socket: Socket): Socket {
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    return socket;
  }

  private accept(down: Socket): void {
    const conn = this.nextConn++;
    this.track(down);
    const up = this.track(connect(this.upstreamPort, "127.0.0.1"));
    down.setNoDelay(true);
    up.setNoDelay(true);
    const requests = new FrameReader();
    const responses = new FrameReader();
    const pending: Pending[] = [];
    const queue: { frame: Buffer; delayMs: number }[] = [];
    let sending = false;
    let downClosed = false;
    const base = { broker: this.broker, listener: this.listener, conn };

    const closeUpIfDrained = () => {
      if (downClosed && pending.length === 0 && queue.length === 0 && !sending) up.end();
    };
    const pump = async () => {
      if (sending) return;
      sending = true;
      while (queue.length > 0) {
        const item = queue.shift() as { frame: Buffer; delayMs: number };
        if (item.delayMs > 0) await new Promise((r) => setTimeout(r, item.delayMs));
        if (up.destroyed) break;
        up.write(framed(item.frame));
      }
      sending = false;
      closeUpIfDrained();
    };
    const forward = (frame: Buffer, info: RequestInfo, delayMs = 0, copies: Pending[] = [{ info, forward: true }]) => {
      for (const p of copies) {
        pending.push(p);
        queue.push({ frame, delayMs: p === copies[0] ? delayMs : 0 });
      }
      void pump();
    };

    down.on("data", (chunk: Buffer) => {
      let frames: Buffer[];
      try {
        frames = requests.push(chunk);
      } catch {
        down.destroy();
        up.destroy();
        return;
      }
      for (const frame of frames) {
        const info = readRequestInfo(frame);
        const name = apiName(info.apiKey);
        this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
        if (LOGGED_APIS.has(info.apiKey))
          this.log({ kind: "request", atMs: Date.now(), ...base, request: summarize(info) });
        // Every armed rule counts every request it matches (two holds of one coordinator's copies,
        // the 1st and the 2nd, must both see the 1st); the first rule whose n-th this is fires.
        let fired: ArmedRule | undefined;
        for (const r of this.rules) if (r.offer(info) && fired === undefined) fired = r;
        if (!fired) {
          forward(frame, info);
          continue;
        }
        const firing: FaultFiring = {
          ruleId: fired.rule.id,
          action: fired.rule.action.kind,
          atMs: Date.now(),
          request: summarize(info),
        };
        fired.firings.push(firing);
        this.log({ kind: "fault", atMs: firing.atMs, ...base, firing });
        const action = fired.rule.action;
        if (action.kind === "hold") this.held.set(fired.rule.id, { frame: Buffer.from(frame), info, conn });
        else if (action.kind === "delay") forward(frame, info, action.ms);
        else if (action.kind === "duplicate")
          forward(frame, info, 0, [
            { info, forward: true },
            { info, forward: false },
          ]);
        else {
          this.log({ kind: "closed", atMs: Date.now(), ...base, by: "drop" });
          down.destroy();
          up.destroy();
          return;
        }
      }
    });
    up.on("data", (chunk: Buffer) => {
      let frames: Buffer[];
      try {
        frames = responses.push(chunk);
      } catch {
        down.destroy();
        up.destroy();
        return;
      }
      for (const frame of frames) {
        const p = pending.shift();
        if (p && p.info.apiKey === 27) this.logMarkerResponse(p.info, frame, conn, !p.forward);
        if ((p === undefined || p.forward) && !down.destroyed) down.write(framed(frame));
      }
      closeUpIfDrained();
    });
    down.on("close", () => {
      if (!downClosed) this.log({ kind: "closed", atMs: Date.now(), ...base, by: "client" });
      downClosed = true;
      closeUpIfDrained();
    });
    up.on("close", () => {
      if (!down.destroyed) {
        this.log({ kind: "closed", atMs: Date.now(), ...base, by: "broker" });
        down.destroy();
      }
    });
  }

  private logMarkerResponse(info: RequestInfo, frame: Buffer, conn: number, swallowed: boolean): void {
    let errors: { partition: string; producerId: number; errorCode: number }[] = [];
    try {
      errors = readMarkerResponse(info.apiVersion, frame);
    } catch {
      errors = [];
    }
    this.log({
      kind: "marker-response",
      atMs: Date.now(),
      broker: this.broker,
      listener: this.listener,
      conn,
      correlationId: info.correlationId,
      swallowed,
      errors,
    });
  }

  /**
   * Deliver a held request now, on a connection of its own (its client gave up on it long ago, as a
   * late TCP segment would arrive after its sender reconnected), and wait for the broker's answer,
   * which goes to nobody. Resolves with the answer's errors (WriteTxnMarkers), or throws when nothing
   * is held for the rule or the broker does not answer within timeoutMs.
   */
  async release(
    ruleId: string,
    timeoutMs = 30_000,
  ): Promise<{ errors: { partition: string; producerId: number; errorCode: number }[] }> {
    const held = this.held.get(ruleId);
    if (!held) throw new Error(`the proxy of ${this.broker} holds nothing for ${ruleId}`);
    this.held.delete(ruleId);
    this.log({
      kind: "released",
      atMs: Date.now(),
      broker: this.broker,
      listener: this.listener,
      ruleId,
      request: summarize(held.info),
    });
    const up = this.track(connect(this.upstreamPort, "127.0.0.1"));
    const reader = new FrameReader();
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        up.destroy();
        reject(
          new Error(`${this.broker} did not answer the released ${apiName(held.info.apiKey)} within ${timeoutMs} ms`),
        );
      }, timeoutMs);
      up.on("data", (chunk: Buffer) => {
        const frames = reader.push(chunk);
        const frame = frames[0];
        if (!frame) return;
        clearTimeout(timer);
        let errors: { partition: string; producerId: number; errorCode: number }[] = [];
        if (held.info.apiKey === 27) {
          this.logMarkerResponse(held.info, frame, held.conn, true);
          errors = readMarkerResponse(held.info.apiVersion, frame);
        }
        up.end();
        resolve({ errors });
      });
      up.on("close", () => {
        clearTimeout(timer);
        reject(
          new Error(
            `${this.broker} closed the connection of the released ${apiName(held.info.apiKey)} without answering`,
          ),
        );
      });
      up.write(framed(held.frame));
    });
  }

  /** Stop listening and close every connection. */
  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
