import { checkRoom } from "./bounds.js";
import type { ChoiceSource, Stream } from "./choice-tape.js";
import type { Simulation, Timer } from "./simulation.js";

/** Latency of one message: usually [minMs, maxMs]; with probability slowPpm, [slowMinMs, slowMaxMs]. */
export interface DelayProfile {
  minMs: number;
  maxMs: number;
  slowPpm: number;
  slowMinMs: number;
  slowMaxMs: number;
}

/** Faults applied to each message on a directed link while faults are active. */
export interface LinkFaults {
  delay: DelayProfile;
  dropPpm: number;
  duplicatePpm: number;
  /** Probability that a message may overtake earlier messages of its connection. */
  reorderPpm: number;
}

export type RpcResult<Resp> =
  | { kind: "response"; body: Resp }
  | { kind: "disconnected"; reason: string };

export interface InboundRequest<Req, Resp> {
  readonly connectionId: number;
  readonly from: string;
  readonly correlationId: number;
  readonly body: Req;
  /** Send the response back on the same connection (dropped if the client closed it meanwhile). */
  respond(body: Resp): void;
  /** Close the connection from the server side without responding (e.g. an unparseable request). */
  closeConnection(reason: string): void;
}

interface Pending<Resp> {
  correlationId: number;
  onResult: (result: RpcResult<Resp>) => void;
  timer: Timer | null;
}

export interface Connection {
  readonly id: number;
  readonly client: string;
  readonly server: string;
  /** Client side state: a closed connection drops late responses; requests in flight still arrive. */
  open: boolean;
  /** The server's incarnation when the connection was made: a restart of the server kills it. */
  readonly serverIncarnation: number;
  lastRequestArrivalMs: number;
  lastResponseArrivalMs: number;
  /** Choice streams of the two directions (one per directed link, shared by its connections). */
  readonly requestStream: Stream;
  readonly responseStream: Stream;
}

/** One copy of a message as a delivery policy sees it. */
export interface OutboundMessage {
  readonly from: string;
  readonly to: string;
  readonly direction: "request" | "response";
  readonly label: string;
  readonly connectionId: number;
  /** False after the fault window: only base latency should apply. */
  readonly faultsActive: boolean;
  /** The link's latency profile (what would be drawn without a policy). */
  readonly profile: DelayProfile;
}

/**
 * Lets a search strategy (such as PCT) decide message delays instead of the link's fault profile.
 * Its draws must go through the run's ChoiceSource. Absent by default: zero cost.
 */
export interface DeliveryPolicy {
  /** Delay in ms of one copy of a message, or null to draw it from the link's profile as usual. */
  delayMs(message: OutboundMessage): number | null;
}

/** A message about to travel, as an interceptor sees it. */
export interface InterceptedMessage<Req, Resp> {
  readonly from: string;
  readonly to: string;
  readonly direction: "request" | "response";
  readonly connectionId: number;
  readonly correlationId: number;
  readonly label: string;
  readonly body: Req | Resp;
}

/**
 * A message taken out of the network by an interceptor. It stays out until it is released,
 * delivered as a copy (the original stays held) or dropped. Its connection's timers keep running,
 * so the sender may time out meanwhile, exactly as when a real packet is delayed.
 */
export interface HeldMessage<Req, Resp> {
  readonly id: number;
  readonly message: InterceptedMessage<Req, Resp>;
  readonly heldAtMs: number;
  /** How many copies were delivered so far. */
  readonly deliveries: number;
  readonly state: "held" | "released" | "dropped";
}

/** Sees every message before it travels and may hold it. */
export interface Interceptor<Req, Resp> {
  /** True: take the message out of the network (it is then handed to `onHeld`). */
  inspect(message: InterceptedMessage<Req, Resp>): boolean;
  onHeld(held: HeldMessage<Req, Resp>): void;
}

/** Upper bound on messages held at once (a script that holds more is looping). */
export const MAX_HELD_MESSAGES = 1_000;

interface HeldEntry<Req, Resp> {
  held: { id: number; message: InterceptedMessage<Req, Resp>; heldAtMs: number; deliveries: number; state: HeldMessage<Req, Resp>["state"] };
  arrive: () => void;
}

/** Upper bound on requests in flight on one connection (Kafka clients use at most 5). */
export const MAX_IN_FLIGHT_PER_CONNECTION = 16;

/**
 * Request/response connections between named nodes, with seeded delays, drops, duplicates,
 * reorders, directed partitions and node stalls. Semantics follow TCP as seen by Kafka: messages
 * of one connection arrive in order unless a reorder fault lets one overtake; closing a connection
 * on the client drops responses that arrive later, but requests already sent still reach the server
 * and are still processed (only their responses are lost).
 */
export class Network<Req, Resp> {
  private readonly handlers = new Map<string, (request: InboundRequest<Req, Resp>) => void>();
  private readonly connections = new Map<number, Connection>();
  private readonly inFlight = new Map<number, Map<number, Pending<Resp>>>();
  private readonly stalledUntil = new Map<string, number>();
  private readonly blockedUntil = new Map<string, number>();
  /** Restarts per server: requests still travelling on a connection to an earlier incarnation are lost. */
  private readonly incarnations = new Map<string, number>();
  private nextConnectionId = 1;
  private nextCorrelationIdValue = 1;
  private interceptor: Interceptor<Req, Resp> | null = null;
  private readonly held = new Map<number, HeldEntry<Req, Resp>>();
  private nextHeldId = 1;
  /** When false, only base latency applies: no drops, duplicates, reorders or slow messages. */
  faultsActive = true;
  /** Set by a search strategy before the run starts; null: the links' fault profiles decide. */
  deliveryPolicy: DeliveryPolicy | null = null;

  constructor(
    private readonly sim: Simulation,
    private readonly choices: ChoiceSource,
    private readonly faultsFor: (from: string, to: string) => LinkFaults,
    private readonly labelOf: (body: Req | Resp) => string,
    /** The message's key fields as short text: a recorded, unhashed annotation for diagrams. */
    private readonly detailOf: (body: Req | Resp) => string = () => "",
  ) {}

  /** The correlation id the next request will get (lets a sender name it in its own events first). */
  get nextCorrelationId(): number {
    return this.nextCorrelationIdValue;
  }

  registerServer(node: string, handler: (request: InboundRequest<Req, Resp>) => void): void {
    this.handlers.set(node, handler);
  }

  connect(client: string, server: string): Connection {
    const connection: Connection = {
      id: this.nextConnectionId++,
      client,
      server,
      open: true,
      serverIncarnation: this.incarnations.get(server) ?? 0,
      lastRequestArrivalMs: 0,
      lastResponseArrivalMs: 0,
      requestStream: this.choices.stream(`net:${client}>${server}`),
      responseStream: this.choices.stream(`net:${server}>${client}`),
    };
    this.connections.set(connection.id, connection);
    this.inFlight.set(connection.id, new Map());
    this.sim.emit(client, "net.connect", { conn: connection.id, to: server });
    return connection;
  }

  inFlightCount(connection: Connection): number {
    return this.inFlight.get(connection.id)?.size ?? 0;
  }

  /** Send a request; exactly one of response/disconnect is reported to onResult. */
  request(
    connection: Connection,
    body: Req,
    timeoutMs: number,
    onResult: (result: RpcResult<Resp>) => void,
  ): number {
    if (!connection.open) throw new Error(`request on closed connection ${connection.id}`);
    const pending = this.inFlight.get(connection.id) as Map<number, Pending<Resp>>;
    checkRoom(`requests in flight on connection ${connection.id} (${connection.client} to ${connection.server})`, pending.size, MAX_IN_FLIGHT_PER_CONNECTION);
    const correlationId = this.nextCorrelationIdValue++;
    const entry: Pending<Resp> = { correlationId, onResult, timer: null };
    pending.set(correlationId, entry);
    entry.timer = this.sim.schedule(timeoutMs, () => {
      if (pending.get(correlationId) === entry) this.close(connection, `request ${correlationId} timed out after ${timeoutMs}ms`);
    });
    this.sim.emit(connection.client, "net.send", { conn: connection.id, corr: correlationId, to: connection.server, msg: this.labelOf(body) }, () => ({ detail: this.detailOf(body) }));
    this.transmit(connection, correlationId, "request", () => this.deliverRequest(connection, correlationId, body), body);
    return correlationId;
  }

  /** Client-side close: every request in flight reports a disconnect now. */
  close(connection: Connection, reason: string): void {
    if (!connection.open) return;
    connection.open = false;
    this.sim.emit(connection.client, "net.close", { conn: connection.id, reason });
    const pending = this.inFlight.get(connection.id) as Map<number, Pending<Resp>>;
    const waiting = [...pending.values()];
    pending.clear();
    for (const p of waiting) {
      p.timer?.cancel();
      p.onResult({ kind: "disconnected", reason });
    }
  }

  /**
   * A server restarts: every connection to it dies. Requests still travelling on them are lost (the
   * process that would have read them is gone); clients notice the reset after one latency.
   */
  resetConnectionsTo(server: string, reason: string): void {
    this.incarnations.set(server, (this.incarnations.get(server) ?? 0) + 1);
    for (const connection of this.connections.values()) {
      if (connection.server !== server || !connection.open) continue;
      const delayMs = this.baseDelay(connection.responseStream, this.faultsFor(server, connection.client).delay);
      this.sim.schedule(delayMs, () => this.close(connection, `${server} restarted: ${reason}`));
    }
  }

  /** Stop delivering messages to `node` until `untilMs`; they are delivered in arrival order then. */
  stall(node: string, untilMs: number): void {
    this.stalledUntil.set(node, Math.max(untilMs, this.stalledUntil.get(node) ?? 0));
    this.sim.emit(node, "fault.stall", { untilMs });
  }

  /** Drop every message sent from `from` to `to` until `untilMs` (call twice for both ways). */
  block(from: string, to: string, untilMs: number): void {
    const key = `${from}>${to}`;
    this.blockedUntil.set(key, Math.max(untilMs, this.blockedUntil.get(key) ?? 0));
    this.sim.emit(from, "fault.partition", { to, untilMs });
  }

  isStalled(node: string): boolean {
    return (this.stalledUntil.get(node) ?? 0) > this.sim.nowMs;
  }

  private isBlocked(from: string, to: string): boolean {
    return (this.blockedUntil.get(`${from}>${to}`) ?? 0) > this.sim.nowMs;
  }

  // ------------------------------------------------------------------ interception (scripts)

  /**
   * Let `interceptor` see every message before it travels and hold the ones it wants (scripted
   * scenarios use this to delay one WriteTxnMarkers request). Null removes it; when none is set
   * the network pays one null check per message.
   */
  setInterceptor(interceptor: Interceptor<Req, Resp> | null): void {
    this.interceptor = interceptor;
  }

  /** Deliver a held message now. `keepHeld`: deliver a copy and keep holding the original (a duplicate). */
  deliverHeld(held: HeldMessage<Req, Resp>, options: { keepHeld: boolean }): void {
    const entry = this.held.get(held.id);
    if (!entry) throw new Error(`message ${held.id} is not held`);
    const m = entry.held.message;
    entry.held.deliveries++;
    if (!options.keepHeld) {
      entry.held.state = "released";
      this.held.delete(held.id);
    }
    this.sim.emit(m.from, options.keepHeld ? "net.held-copy" : "net.release", { held: held.id, conn: m.connectionId, corr: m.correlationId, dir: m.direction, msg: m.label });
    this.arriveAt(m.to, entry.arrive);
  }

  /** Never deliver a held message. */
  dropHeld(held: HeldMessage<Req, Resp>): void {
    const entry = this.held.get(held.id);
    if (!entry) throw new Error(`message ${held.id} is not held`);
    entry.held.state = "dropped";
    this.held.delete(held.id);
    this.sim.emit(entry.held.message.from, "net.drop-held", { held: held.id, conn: entry.held.message.connectionId, corr: entry.held.message.correlationId });
  }

  get heldCount(): number {
    return this.held.size;
  }

  /** Ask the interceptor; true when it took the message out of the network. */
  private intercepted(connection: Connection, from: string, to: string, direction: "request" | "response", arrive: () => void, correlationId: number, body: Req | Resp): boolean {
    const interceptor = this.interceptor as Interceptor<Req, Resp>;
    const message: InterceptedMessage<Req, Resp> = { from, to, direction, connectionId: connection.id, correlationId, label: this.labelOf(body), body };
    if (!interceptor.inspect(message)) return false;
    checkRoom("messages held by the script", this.held.size, MAX_HELD_MESSAGES);
    const held = { id: this.nextHeldId++, message, heldAtMs: this.sim.nowMs, deliveries: 0, state: "held" as const };
    this.held.set(held.id, { held, arrive });
    this.sim.emit(from, "net.hold", { held: held.id, conn: connection.id, corr: correlationId, dir: direction, to, msg: message.label });
    interceptor.onHeld(held);
    return true;
  }

  /** Apply link faults to one message and schedule its arrival (and maybe a duplicate's). */
  private transmit(connection: Connection, correlationId: number, direction: "request" | "response", arrive: () => void, body: Req | Resp): void {
    const toServer = direction === "request";
    const from = toServer ? connection.client : connection.server;
    const to = toServer ? connection.server : connection.client;
    if (this.interceptor !== null && this.intercepted(connection, from, to, direction, arrive, correlationId, body)) return;
    const stream = toServer ? connection.requestStream : connection.responseStream;
    if (this.isBlocked(from, to)) {
      this.sim.emit(from, "net.drop", { conn: connection.id, corr: correlationId, cause: "partition", dir: direction });
      return;
    }
    const faults = this.faultsFor(from, to);
    const faulty = this.faultsActive;
    if (faulty && stream.chance(faults.dropPpm)) {
      this.sim.emit(from, "net.drop", { conn: connection.id, corr: correlationId, cause: "loss", dir: direction });
      return;
    }
    const copies = faulty && stream.chance(faults.duplicatePpm) ? 2 : 1;
    for (let copy = 0; copy < copies; copy++) {
      if (copy === 1) this.sim.emit(from, "net.duplicate", { conn: connection.id, corr: correlationId, dir: direction });
      const decided = this.deliveryPolicy?.delayMs({ from, to, direction, label: this.labelOf(body), connectionId: connection.id, faultsActive: faulty, profile: faults.delay }) ?? null;
      const slow = decided === null ? faulty && stream.chance(faults.delay.slowPpm) : decided > faults.delay.maxMs;
      let delayMs = decided ?? (slow ? stream.between(faults.delay.slowMinMs, faults.delay.slowMaxMs) : stream.between(faults.delay.minMs, faults.delay.maxMs));
      if (slow) this.sim.emit(from, "net.slow", { conn: connection.id, corr: correlationId, dir: direction, copy, delayMs });
      const mayOvertake = faulty && stream.chance(faults.reorderPpm);
      const last = toServer ? connection.lastRequestArrivalMs : connection.lastResponseArrivalMs;
      let arrivalMs = this.sim.nowMs + delayMs;
      if (!mayOvertake && arrivalMs < last) arrivalMs = last;
      if (toServer) connection.lastRequestArrivalMs = Math.max(last, arrivalMs);
      else connection.lastResponseArrivalMs = Math.max(last, arrivalMs);
      if (arrivalMs < last) this.sim.emit(from, "net.overtake", { conn: connection.id, corr: correlationId, dir: direction, copy, delayMs: arrivalMs - this.sim.nowMs });
      delayMs = arrivalMs - this.sim.nowMs;
      this.sim.schedule(delayMs, () => this.arriveAt(to, arrive));
    }
  }

  /** Base latency of one message on a stream (used for connection closes, never faulty). */
  private baseDelay(stream: Stream, delay: DelayProfile): number {
    return stream.between(delay.minMs, delay.maxMs);
  }

  /** A stalled node takes its messages when the stall ends, in arrival order. */
  private arriveAt(node: string, arrive: () => void): void {
    const until = this.stalledUntil.get(node) ?? 0;
    if (until > this.sim.nowMs) this.sim.scheduleAt(until, () => this.arriveAt(node, arrive));
    else arrive();
  }

  private deliverRequest(connection: Connection, correlationId: number, body: Req): void {
    if (connection.serverIncarnation !== (this.incarnations.get(connection.server) ?? 0)) {
      this.sim.emit(connection.server, "net.drop", { conn: connection.id, cause: "server-restarted", dir: "request" });
      return;
    }
    const handler = this.handlers.get(connection.server);
    if (!handler) throw new Error(`no server registered as ${connection.server}`);
    this.sim.emit(connection.server, "net.deliver", { conn: connection.id, corr: correlationId, from: connection.client, msg: this.labelOf(body) });
    let answered = false;
    handler({
      connectionId: connection.id,
      from: connection.client,
      correlationId,
      body,
      respond: (response: Resp) => {
        if (answered) throw new Error(`request ${correlationId} answered twice`);
        answered = true;
        // The server side of the response, so that a trace pairs every arrow with both of its ends.
        this.sim.emit(connection.server, "net.reply", { conn: connection.id, corr: correlationId, to: connection.client, msg: this.labelOf(response) }, () => ({ detail: this.detailOf(response) }));
        this.transmit(connection, correlationId, "response", () => this.deliverResponse(connection, correlationId, response), response);
      },
      closeConnection: (reason: string) => {
        answered = true;
        this.sim.emit(connection.server, "net.server-close", { conn: connection.id, reason });
        // The client notices the FIN after one message latency.
        const delayMs = this.baseDelay(connection.responseStream, this.faultsFor(connection.server, connection.client).delay);
        this.sim.schedule(delayMs, () => this.close(connection, `closed by ${connection.server}: ${reason}`));
      },
    });
  }

  private deliverResponse(connection: Connection, correlationId: number, body: Resp): void {
    const pending = this.inFlight.get(connection.id) as Map<number, Pending<Resp>>;
    const entry = pending.get(correlationId);
    if (!connection.open || !entry) {
      this.sim.emit(connection.client, "net.late-response", { conn: connection.id, corr: correlationId, msg: this.labelOf(body) });
      return;
    }
    pending.delete(correlationId);
    entry.timer?.cancel();
    this.sim.emit(connection.client, "net.response", { conn: connection.id, corr: correlationId, msg: this.labelOf(body) });
    entry.onResult({ kind: "response", body });
  }
}

/** One client's connections, reopened on demand after a close (what NetworkClient does per node). */
export class ConnectionPool<Req, Resp> {
  private readonly connections = new Map<string, Connection>();

  constructor(
    private readonly net: Network<Req, Resp>,
    private readonly client: string,
  ) {}

  to(server: string): Connection {
    const existing = this.connections.get(server);
    if (existing?.open) return existing;
    const fresh = this.net.connect(this.client, server);
    this.connections.set(server, fresh);
    return fresh;
  }
}
