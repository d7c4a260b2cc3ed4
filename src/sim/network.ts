import { BoundExceeded } from "./bounds.js";
import type { ChoiceSource, Stream } from "./choice-tape.js";
import { drawMessage, type MessageEffects } from "./message-choices.js";
import type { NetAnnotations, NetEvents } from "./net-events.js";
import { SimEvent, type Simulation } from "./simulation.js";
import { hashString } from "./trace.js";

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
  /** How the link reads these rates (absent: adversarial); see NetworkModel. */
  model?: NetworkModel;
}

/**
 * What faults the network may make. `adversarial`: a message may be lost, duplicated or overtake
 * earlier ones of its connection, and a partition loses what crosses it. `tcp`: what TCP can do
 * under Kafka's clients: a connection delivers each message once and in order; a lost segment is
 * retransmitted (it arrives late); a partition holds a connection's messages and delivers them
 * when it heals, unless the connection was reset meanwhile (its server restarted). Duplicates then
 * come only from senders that re-send on a new connection after a timeout or a disconnect.
 */
export type NetworkModel = "adversarial" | "tcp";

export type RpcResult<Resp> = { kind: "response"; body: Resp } | { kind: "disconnected"; reason: string };

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

/**
 * A request waiting for its answer, and its own timeout: the queued event fires at the deadline and
 * closes the connection if the request is still waiting. Its messages carry it, so a response finds
 * it without a lookup.
 */
class Pending<Req, Resp> extends SimEvent {
  /** Answered, or reported disconnected: a later response is a late one. */
  done = false;

  constructor(
    private readonly network: Network<Req, Resp>,
    private readonly connection: Connection,
    readonly correlationId: number,
    readonly onResult: (result: RpcResult<Resp>) => void,
    private readonly timeoutMs: number,
  ) {
    super();
  }

  fire(): void {
    if (!this.done)
      this.network.close(this.connection, `request ${this.correlationId} timed out after ${this.timeoutMs}ms`);
  }
}

/** A connection's requests in flight, in the order they were sent (closing reports them in that order). */
class InFlight<Req, Resp> {
  private entries: Pending<Req, Resp>[] = [];
  /** Entries not done. */
  size = 0;

  add(entry: Pending<Req, Resp>): void {
    this.entries.push(entry);
    this.size++;
  }

  /** Mark one entry answered; done entries are dropped from the list once they are most of it. */
  finish(entry: Pending<Req, Resp>): void {
    entry.done = true;
    this.size--;
    if (this.entries.length > 2 * this.size + 8) this.entries = this.entries.filter((e) => !e.done);
  }

  /** Every entry not done, in send order; the list is left empty and the entries done. */
  takeAll(): Pending<Req, Resp>[] {
    const waiting = this.entries.filter((e) => !e.done);
    for (const e of waiting) e.done = true;
    this.entries = [];
    this.size = 0;
    return waiting;
  }
}

/** What the network knows of one node, shared by all its connections. */
interface NodeState<Req, Resp> {
  readonly name: string;
  /** Trace hash of the name. */
  readonly hash: number;
  /** Restarts so far: requests still travelling on a connection to an earlier incarnation are lost. */
  incarnation: number;
  /** Messages to the node wait until then (a stall). */
  stalledUntilMs: number;
  /** The node's process is down: requests to it are refused, responses to it are lost. */
  down: boolean;
  handler: ((request: InboundRequest<Req, Resp>) => void) | null;
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
 * The choice stream of the messages `from` sends to `to` (its faults and delays, in send order); a
 * named channel (a client's connections of one purpose, e.g. a marker sender's) has its own.
 */
export function linkStreamName(from: string, to: string, channel = ""): string {
  return channel === "" ? `net:${from}>${to}` : `net:${from}>${to}/${channel}`;
}

/**
 * Told of each request just before it draws its fault and delay choices, with the faults it draws
 * them under (the coverage strategy's late-copy finder: see transmit-choices.ts). Absent by default.
 */
export interface TransmitObserver {
  requestDrawing(correlationId: number, stream: string, faults: LinkFaults): void;
}

/**
 * Lets a search strategy (such as PCT) decide message delays instead of the link's fault profile.
 * Its draws must go through the run's ChoiceSource. Absent by default: zero cost.
 */
export interface DeliveryPolicy {
  /** Delay in ms of one copy of a message, or null to draw it from the link's profile as usual. */
  delayMs(message: OutboundMessage): number | null;
}

/**
 * The network's own view of a connection: what the hot path would otherwise look up by name on
 * every message (link faults, partition keys, trace hashes of the node names, requests in flight).
 */
interface Link<Req, Resp> extends Connection {
  readonly pending: InFlight<Req, Resp>;
  readonly requestFaults: LinkFaults;
  readonly responseFaults: LinkFaults;
  /** Keys of `blockedUntil` for the two directions. */
  readonly requestBlockKey: string;
  readonly responseBlockKey: string;
  readonly clientNode: NodeState<Req, Resp>;
  readonly serverNode: NodeState<Req, Resp>;
  /** TCP model: messages of each direction held by a partition and not yet delivered (later ones queue behind them). */
  heldRequests: number;
  heldResponses: number;
}

/**
 * Trace hashes of the kinds emitted for every message (the rest go through `Simulation.emit`).
 * Unrecorded, their fields are hashed one by one in the order net-events.ts declares them.
 */
const netKindHash = (kind: keyof NetEvents) => hashString(kind);
const KIND_SEND = netKindHash("net.send");
const KIND_DELIVER = netKindHash("net.deliver");
const KIND_REPLY = netKindHash("net.reply");
const KIND_RESPONSE = netKindHash("net.response");

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
  held: {
    id: number;
    message: InterceptedMessage<Req, Resp>;
    heldAtMs: number;
    deliveries: number;
    state: HeldMessage<Req, Resp>["state"];
  };
  arrive: Arrival<Req, Resp>;
}

/** Upper bound on requests in flight on one connection (Kafka clients use at most 5). */
export const MAX_IN_FLIGHT_PER_CONNECTION = 16;

/**
 * Request/response connections between named nodes, with seeded delays, drops, duplicates,
 * reorders, directed partitions and node stalls. Semantics follow TCP as seen by Kafka: messages
 * of one connection arrive in order unless a reorder fault lets one overtake (the adversarial
 * model; the TCP model never duplicates or reorders, see NetworkModel); closing a connection
 * on the client drops responses that arrive later, but requests already sent still reach the server
 * and are still processed (only their responses are lost).
 *
 * `faultsFor` must be a pure function of its arguments: it is asked once per connection and direction.
 */
export class Network<Req, Resp> {
  private readonly nodes = new Map<string, NodeState<Req, Resp>>();
  private readonly connections = new Map<number, Link<Req, Resp>>();
  private readonly blockedUntil = new Map<string, number>();
  private nextConnectionId = 1;
  private nextCorrelationIdValue = 1;
  private interceptor: Interceptor<Req, Resp> | null = null;
  private readonly held = new Map<number, HeldEntry<Req, Resp>>();
  private nextHeldId = 1;
  /** The trace keeps every event (replay): message events are then built as objects, with details. */
  private readonly recording: boolean;
  /** Draws each message's choices and applies them (one, reused: a message is drawn whole before the next). */
  private readonly transmission: Transmission<Req, Resp>;
  /** When false, only base latency applies: no drops, duplicates, reorders or slow messages. */
  faultsActive = true;
  /** Set by a search strategy before the run starts; null: the links' fault profiles decide. */
  deliveryPolicy: DeliveryPolicy | null = null;
  /** Set by the coverage strategy before the run starts (told only while faults are on and no policy decides delays). */
  transmitObserver: TransmitObserver | null = null;
  /** Set before the run starts: how partitions treat messages (see NetworkModel; the links' faults say how each message draws). */
  model: NetworkModel = "adversarial";

  constructor(
    private readonly sim: Simulation<NetEvents>,
    private readonly choices: ChoiceSource,
    private readonly faultsFor: (
      from: string,
      to: string,
      channel: string,
      direction: "request" | "response",
    ) => LinkFaults,
    private readonly labelOf: (body: Req | Resp) => string,
    /** The message's key fields as short text: a recorded, unhashed annotation for diagrams. */
    private readonly detailOf: (body: Req | Resp) => string = () => "",
  ) {
    this.recording = sim.trace.recording;
    this.transmission = new Transmission(this, sim, labelOf);
  }

  /** The correlation id the next request will get (lets a sender name it in its own events first). */
  get nextCorrelationId(): number {
    return this.nextCorrelationIdValue;
  }

  registerServer(node: string, handler: (request: InboundRequest<Req, Resp>) => void): void {
    this.node(node).handler = handler;
  }

  private node(name: string): NodeState<Req, Resp> {
    let state = this.nodes.get(name);
    if (!state) {
      state = { name, hash: hashString(name), incarnation: 0, stalledUntilMs: 0, down: false, handler: null };
      this.nodes.set(name, state);
    }
    return state;
  }

  /** A new connection; `channel` names its purpose (its own fault profile and choice streams). */
  connect(client: string, server: string, channel = ""): Connection {
    const clientNode = this.node(client);
    const serverNode = this.node(server);
    const connection: Link<Req, Resp> = {
      id: this.nextConnectionId++,
      client,
      server,
      open: true,
      serverIncarnation: serverNode.incarnation,
      lastRequestArrivalMs: 0,
      lastResponseArrivalMs: 0,
      requestStream: this.choices.stream(linkStreamName(client, server, channel)),
      responseStream: this.choices.stream(linkStreamName(server, client, channel)),
      pending: new InFlight(),
      requestFaults: this.faultsFor(client, server, channel, "request"),
      responseFaults: this.faultsFor(server, client, channel, "response"),
      requestBlockKey: `${client}>${server}`,
      responseBlockKey: `${server}>${client}`,
      clientNode,
      serverNode,
      heldRequests: 0,
      heldResponses: 0,
    };
    this.connections.set(connection.id, connection);
    this.sim.emit(client, "net.connect", { conn: connection.id, to: server });
    return connection;
  }

  inFlightCount(connection: Connection): number {
    return (connection as Link<Req, Resp>).pending.size;
  }

  /** Send a request; exactly one of response/disconnect is reported to onResult. */
  request(connection: Connection, body: Req, timeoutMs: number, onResult: (result: RpcResult<Resp>) => void): number {
    const link = connection as Link<Req, Resp>;
    if (!link.open) throw new Error(`request on closed connection ${link.id}`);
    const pending = link.pending;
    if (pending.size >= MAX_IN_FLIGHT_PER_CONNECTION) {
      throw new BoundExceeded(
        `requests in flight on connection ${link.id} (${link.client} to ${link.server})`,
        MAX_IN_FLIGHT_PER_CONNECTION,
      );
    }
    const correlationId = this.nextCorrelationIdValue++;
    const entry = new Pending(this, link, correlationId, onResult, timeoutMs);
    pending.add(entry);
    this.sim.scheduleEvent(timeoutMs, entry);
    const labelHash = this.recording ? 0 : hashString(this.labelOf(body));
    this.emitTransfer("net.send", KIND_SEND, link.clientNode, link, correlationId, link.serverNode, body, labelHash);
    this.transmit(link, entry, true, body, labelHash);
    return correlationId;
  }

  /** Client-side close: every request in flight reports a disconnect now. */
  close(connection: Connection, reason: string): void {
    if (!connection.open) return;
    connection.open = false;
    this.sim.emit(connection.client, "net.close", { conn: connection.id, reason });
    const waiting = (connection as Link<Req, Resp>).pending.takeAll();
    for (const p of waiting) {
      p.cancel();
      p.onResult({ kind: "disconnected", reason });
    }
  }

  /**
   * A server restarts: every connection to it dies. Requests still travelling on them are lost (the
   * process that would have read them is gone); clients notice the reset after one latency.
   */
  resetConnectionsTo(server: string, reason: string): void {
    this.node(server).incarnation++;
    for (const connection of this.connections.values()) {
      if (connection.server !== server || !connection.open) continue;
      const delayMs = this.baseDelay(connection.responseStream, connection.responseFaults.delay);
      this.sim.schedule(delayMs, () => this.close(connection, `${server} restarted: ${reason}`));
    }
  }

  /**
   * The node's process stops (a crash or a shutdown): connections to it die as on a restart, its own
   * connections close at once (their requests already sent still travel), and until `nodeUp` a
   * request reaching it is refused (the client sees the reset one latency later).
   */
  nodeDown(node: string, reason: string): void {
    const state = this.node(node);
    if (state.down) return;
    state.down = true;
    this.resetConnectionsTo(node, reason);
    for (const connection of this.connections.values())
      if (connection.client === node && connection.open) this.close(connection, `${node} stopped: ${reason}`);
    this.sim.emit(node, "net.node-down", { reason });
  }

  /** The node's process runs again (as a new incarnation: no connection of the old one survives). */
  nodeUp(node: string): void {
    const state = this.node(node);
    if (!state.down) return;
    state.down = false;
    this.sim.emit(node, "net.node-up", {});
  }

  isDown(node: string): boolean {
    return this.nodes.get(node)?.down ?? false;
  }

  /** Stop delivering messages to `node` until `untilMs`; they are delivered in arrival order then. */
  stall(node: string, untilMs: number): void {
    const state = this.node(node);
    state.stalledUntilMs = Math.max(untilMs, state.stalledUntilMs);
    this.sim.emit(node, "fault.stall", { untilMs });
  }

  /** Drop every message sent from `from` to `to` until `untilMs` (call twice for both ways). */
  block(from: string, to: string, untilMs: number): void {
    const key = `${from}>${to}`;
    this.blockedUntil.set(key, Math.max(untilMs, this.blockedUntil.get(key) ?? 0));
    this.sim.emit(from, "fault.partition", { to, untilMs });
  }

  isStalled(node: string): boolean {
    return (this.nodes.get(node)?.stalledUntilMs ?? 0) > this.sim.nowMs;
  }

  /**
   * TCP model: a message that reaches a partitioned link (or queues behind one held there) waits
   * and is retransmitted when the partition heals, in its connection's order. True when held.
   */
  private heldByPartition(arrival: Arrival<Req, Resp>): boolean {
    const { link, toServer } = arrival;
    const key = toServer ? link.requestBlockKey : link.responseBlockKey;
    const blocked = this.isBlocked(key);
    if (arrival.heldByPartition) {
      // Held copies fire in the order they were held: one the partition no longer blocks is next.
      arrival.heldByPartition = false;
      if (toServer) link.heldRequests--;
      else link.heldResponses--;
      if (!blocked) return false;
    } else if (!blocked && (toServer ? link.heldRequests : link.heldResponses) === 0) return false;
    const untilMs = blocked ? (this.blockedUntil.get(key) as number) : this.sim.nowMs;
    if (toServer) link.heldRequests++;
    else link.heldResponses++;
    const copy = arrival.copy();
    copy.heldByPartition = true;
    this.sim.emit(arrival.from, "net.partition-hold", {
      conn: link.id,
      corr: arrival.correlationId,
      dir: arrival.direction,
      untilMs,
    });
    this.sim.scheduleEventAt(untilMs, copy);
    return true;
  }

  private isBlocked(key: string): boolean {
    return this.blockedUntil.size > 0 && (this.blockedUntil.get(key) ?? 0) > this.sim.nowMs;
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
    this.sim.emit(m.from, options.keepHeld ? "net.held-copy" : "net.release", {
      held: held.id,
      conn: m.connectionId,
      corr: m.correlationId,
      dir: m.direction,
      msg: m.label,
    });
    this.arriveAt(entry.arrive);
  }

  /** Never deliver a held message. */
  dropHeld(held: HeldMessage<Req, Resp>): void {
    const entry = this.held.get(held.id);
    if (!entry) throw new Error(`message ${held.id} is not held`);
    entry.held.state = "dropped";
    this.held.delete(held.id);
    this.sim.emit(entry.held.message.from, "net.drop-held", {
      held: held.id,
      conn: entry.held.message.connectionId,
      corr: entry.held.message.correlationId,
    });
  }

  get heldCount(): number {
    return this.held.size;
  }

  /** Ask the interceptor; true when it took the message out of the network. */
  private intercepted(
    connection: Connection,
    from: string,
    to: string,
    direction: "request" | "response",
    arrive: Arrival<Req, Resp>,
    body: Req | Resp,
  ): boolean {
    const correlationId = arrive.pending.correlationId;
    const interceptor = this.interceptor as Interceptor<Req, Resp>;
    const message: InterceptedMessage<Req, Resp> = {
      from,
      to,
      direction,
      connectionId: connection.id,
      correlationId,
      label: this.labelOf(body),
      body,
    };
    if (!interceptor.inspect(message)) return false;
    if (this.held.size >= MAX_HELD_MESSAGES) throw new BoundExceeded("messages held by the script", MAX_HELD_MESSAGES);
    const held = { id: this.nextHeldId++, message, heldAtMs: this.sim.nowMs, deliveries: 0, state: "held" as const };
    this.held.set(held.id, { held, arrive });
    this.sim.emit(from, "net.hold", {
      held: held.id,
      conn: connection.id,
      corr: correlationId,
      dir: direction,
      to,
      msg: message.label,
    });
    interceptor.onHeld(held);
    return true;
  }

  /** Apply link faults to one message and schedule its arrival (and maybe a duplicate's). */
  private transmit(
    link: Link<Req, Resp>,
    pending: Pending<Req, Resp>,
    toServer: boolean,
    body: Req | Resp,
    labelHash: number,
  ): void {
    const direction = toServer ? "request" : "response";
    const from = toServer ? link.client : link.server;
    const to = toServer ? link.server : link.client;
    const correlationId = pending.correlationId;
    const arrival = new Arrival(this, link, pending, toServer, body, labelHash);
    if (this.interceptor !== null && this.intercepted(link, from, to, direction, arrival, body)) return;
    const stream = toServer ? link.requestStream : link.responseStream;
    if (this.model === "adversarial" && this.isBlocked(toServer ? link.requestBlockKey : link.responseBlockKey)) {
      this.sim.emit(from, "net.drop", { conn: link.id, corr: correlationId, cause: "partition", dir: direction });
      return;
    }
    const faults = toServer ? link.requestFaults : link.responseFaults;
    const faulty = this.faultsActive;
    if (this.transmitObserver !== null && toServer && faulty && this.deliveryPolicy === null)
      this.transmitObserver.requestDrawing(correlationId, stream.name, faults);
    this.transmission.draw(arrival, stream, faults, faulty);
  }

  /** Base latency of one message on a stream (used for connection closes, never faulty). */
  private baseDelay(stream: Stream, delay: DelayProfile): number {
    return stream.between(delay.minMs, delay.maxMs);
  }

  /** A stalled node takes its messages when the stall ends, in arrival order. */
  arriveAt(arrival: Arrival<Req, Resp>): void {
    const until = (arrival.toServer ? arrival.link.serverNode : arrival.link.clientNode).stalledUntilMs;
    if (until > this.sim.nowMs) this.sim.scheduleEventAt(until, arrival.copy());
    else if (this.model === "tcp" && this.heldByPartition(arrival)) return;
    else if (arrival.toServer)
      this.deliverRequest(arrival.link, arrival.pending, arrival.body as Req, arrival.labelHash);
    else this.deliverResponse(arrival.link, arrival.pending, arrival.body as Resp, arrival.labelHash);
  }

  private deliverRequest(link: Link<Req, Resp>, pending: Pending<Req, Resp>, body: Req, labelHash: number): void {
    const correlationId = pending.correlationId;
    if (link.serverIncarnation !== link.serverNode.incarnation || link.serverNode.down) {
      this.sim.emit(link.server, "net.drop", { conn: link.id, cause: "server-restarted", dir: "request" });
      // Nobody listens there now: the client's connection is reset (refused) one latency later.
      if (link.serverNode.down && link.open) this.serverClose(link, `${link.server} is down`);
      return;
    }
    const handler = link.serverNode.handler;
    if (!handler) throw new Error(`no server registered as ${link.server}`);
    if (this.recording) {
      this.sim.emit(link.server, "net.deliver", {
        conn: link.id,
        corr: correlationId,
        from: link.client,
        msg: this.labelOf(body),
      });
    } else {
      const trace = this.sim.trace;
      trace.beginEvent(this.sim.nowMs, link.serverNode.hash, KIND_DELIVER);
      trace.fieldNumber(link.id);
      trace.fieldNumber(correlationId);
      trace.fieldStringHash(link.clientNode.hash);
      trace.fieldStringHash(labelHash);
    }
    handler(new ServerSideRequest(this, link, pending, body));
  }

  /** The server's answer to a request (see InboundRequest.respond). */
  respondTo(link: Link<Req, Resp>, pending: Pending<Req, Resp>, response: Resp): void {
    // The server side of the response, so that a trace pairs every arrow with both of its ends.
    const labelHash = this.recording ? 0 : hashString(this.labelOf(response));
    this.emitTransfer(
      "net.reply",
      KIND_REPLY,
      link.serverNode,
      link,
      pending.correlationId,
      link.clientNode,
      response,
      labelHash,
    );
    this.transmit(link, pending, false, response, labelHash);
  }

  /** The server closes a connection without answering (see InboundRequest.closeConnection). */
  serverClose(link: Link<Req, Resp>, reason: string): void {
    this.sim.emit(link.server, "net.server-close", { conn: link.id, reason });
    // The client notices the FIN after one message latency.
    const delayMs = this.baseDelay(link.responseStream, link.responseFaults.delay);
    this.sim.schedule(delayMs, () => this.close(link, `closed by ${link.server}: ${reason}`));
  }

  private deliverResponse(link: Link<Req, Resp>, entry: Pending<Req, Resp>, body: Resp, labelHash: number): void {
    const correlationId = entry.correlationId;
    if (!link.open || entry.done || link.clientNode.down) {
      this.sim.emit(link.client, "net.late-response", { conn: link.id, corr: correlationId, msg: this.labelOf(body) });
      return;
    }
    link.pending.finish(entry);
    entry.cancel();
    if (this.recording) {
      this.sim.emit(link.client, "net.response", { conn: link.id, corr: correlationId, msg: this.labelOf(body) });
    } else {
      const trace = this.sim.trace;
      trace.beginEvent(this.sim.nowMs, link.clientNode.hash, KIND_RESPONSE);
      trace.fieldNumber(link.id);
      trace.fieldNumber(correlationId);
      trace.fieldStringHash(labelHash);
    }
    entry.onResult({ kind: "response", body });
  }

  /**
   * net.send and net.reply: `{ conn, corr, to, msg }`, plus the message's detail in a recorded
   * trace. Unrecorded, the same fields are hashed without building the event.
   */
  private emitTransfer(
    kind: "net.send" | "net.reply",
    kindHash: number,
    node: NodeState<Req, Resp>,
    link: Link<Req, Resp>,
    correlationId: number,
    to: NodeState<Req, Resp>,
    body: Req | Resp,
    labelHash: number,
  ): void {
    if (this.recording) {
      this.sim.emit(
        node.name,
        kind,
        { conn: link.id, corr: correlationId, to: to.name, msg: this.labelOf(body) },
        (): NetAnnotations[typeof kind] => ({ detail: this.detailOf(body) }),
      );
      return;
    }
    const trace = this.sim.trace;
    trace.beginEvent(this.sim.nowMs, node.hash, kindHash);
    trace.fieldNumber(link.id);
    trace.fieldNumber(correlationId);
    trace.fieldStringHash(to.hash);
    trace.fieldStringHash(labelHash);
  }
}

/** A message on its way: where it goes and what it carries; queued, it fires when it arrives. */
class Arrival<Req, Resp> extends SimEvent {
  constructor(
    private readonly network: Network<Req, Resp>,
    readonly link: Link<Req, Resp>,
    /** The request this message is (or answers). */
    readonly pending: Pending<Req, Resp>,
    readonly toServer: boolean,
    readonly body: Req | Resp,
    /** Trace hash of the message's label (0 when the trace is recorded: events are then built whole). */
    readonly labelHash: number,
  ) {
    super();
  }

  /** TCP model: this copy was held by a partition and counts among its link's held messages. */
  heldByPartition = false;

  get from(): string {
    return this.toServer ? this.link.client : this.link.server;
  }

  get to(): string {
    return this.toServer ? this.link.server : this.link.client;
  }

  get direction(): "request" | "response" {
    return this.toServer ? "request" : "response";
  }

  get correlationId(): number {
    return this.pending.correlationId;
  }

  /** Another copy of the same message (a duplicate, a redelivery after a stall, a held message's copy). */
  copy(): Arrival<Req, Resp> {
    const copy = new Arrival(this.network, this.link, this.pending, this.toServer, this.body, this.labelHash);
    copy.heldByPartition = this.heldByPartition;
    return copy;
  }

  fire(): void {
    this.network.arriveAt(this);
  }
}

/**
 * One message's fault and delay choices (drawMessage) and what they do: the trace events of a
 * drop, a duplicate, a slow or overtaking copy, and each copy's arrival, scheduled in connection
 * order unless the copy may overtake.
 */
class Transmission<Req, Resp> implements MessageEffects {
  /**
   * The message drawing its choices. One draws whole before the next: its effects only emit and
   * schedule (unguarded: a guard's try/finally cost 1.5% of a transmit-heavy run).
   */
  private message!: Arrival<Req, Resp>;

  constructor(
    private readonly network: Network<Req, Resp>,
    private readonly sim: Simulation<NetEvents>,
    private readonly labelOf: (body: Req | Resp) => string,
  ) {}

  draw(arrival: Arrival<Req, Resp>, stream: Stream, faults: LinkFaults, faulty: boolean): void {
    this.message = arrival;
    drawMessage(stream, faults, faulty, this);
  }

  lost(): void {
    const { link, correlationId, from, direction } = this.message;
    this.sim.emit(from, "net.drop", { conn: link.id, corr: correlationId, cause: "loss", dir: direction });
  }

  retransmitted(): void {
    const { link, correlationId, from, direction } = this.message;
    this.sim.emit(from, "net.retransmit", { conn: link.id, corr: correlationId, dir: direction });
  }

  beforeCopy(copy: number): number | null {
    const policy = this.network.deliveryPolicy;
    if (copy === 0 && policy === null) return null;
    const { link, correlationId, from, to, direction, body, toServer } = this.message;
    if (copy === 1) this.sim.emit(from, "net.duplicate", { conn: link.id, corr: correlationId, dir: direction });
    return (
      policy?.delayMs({
        from,
        to,
        direction,
        label: this.labelOf(body),
        connectionId: link.id,
        faultsActive: this.network.faultsActive,
        profile: (toServer ? link.requestFaults : link.responseFaults).delay,
      }) ?? null
    );
  }

  delayed(copy: number, slow: boolean, delayMs: number): void {
    if (!slow) return;
    const { link, correlationId, from, direction } = this.message;
    this.sim.emit(from, "net.slow", { conn: link.id, corr: correlationId, dir: direction, copy, delayMs });
  }

  /** Schedule the copy's arrival: after the connection's latest arrival unless it may overtake. */
  sent(copy: number, delayMs: number, mayOvertake: boolean): void {
    const message = this.message;
    const { link, toServer } = message;
    const now = this.sim.nowMs;
    const last = toServer ? link.lastRequestArrivalMs : link.lastResponseArrivalMs;
    let arrivalMs = now + delayMs;
    if (!mayOvertake && arrivalMs < last) arrivalMs = last;
    if (toServer) link.lastRequestArrivalMs = Math.max(last, arrivalMs);
    else link.lastResponseArrivalMs = Math.max(last, arrivalMs);
    if (arrivalMs < last) {
      const { correlationId, from, direction } = message;
      this.sim.emit(from, "net.overtake", {
        conn: link.id,
        corr: correlationId,
        dir: direction,
        copy,
        delayMs: arrivalMs - now,
      });
    }
    this.sim.scheduleEvent(arrivalMs - now, copy === 0 ? message : message.copy());
  }
}

/** A request as its server sees it; answered at most once. */
class ServerSideRequest<Req, Resp> implements InboundRequest<Req, Resp> {
  private answered = false;

  constructor(
    private readonly network: Network<Req, Resp>,
    private readonly link: Link<Req, Resp>,
    private readonly pending: Pending<Req, Resp>,
    readonly body: Req,
  ) {}

  get correlationId(): number {
    return this.pending.correlationId;
  }

  get connectionId(): number {
    return this.link.id;
  }

  get from(): string {
    return this.link.client;
  }

  respond(response: Resp): void {
    if (this.answered) throw new Error(`request ${this.correlationId} answered twice`);
    this.answered = true;
    this.network.respondTo(this.link, this.pending, response);
  }

  closeConnection(reason: string): void {
    this.answered = true;
    this.network.serverClose(this.link, reason);
  }
}

/** One client's connections, reopened on demand after a close (what NetworkClient does per node). */
export class ConnectionPool<Req, Resp> {
  private readonly connections = new Map<string, Connection>();

  constructor(
    private readonly net: Network<Req, Resp>,
    private readonly client: string,
    /** Told of every new connection (a Kafka client's NetworkClient asks ApiVersions on each). */
    private readonly onConnect: ((server: string) => void) | null = null,
  ) {}

  to(server: string): Connection {
    const existing = this.connections.get(server);
    if (existing?.open) return existing;
    const fresh = this.net.connect(this.client, server);
    this.connections.set(server, fresh);
    this.onConnect?.(server);
    return fresh;
  }
}
