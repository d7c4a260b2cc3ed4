/**
 * The trace events of the network (network.ts), one entry per kind: its fields, in the order the
 * network writes them (the trace hash absorbs them in that order). `conn` is a connection id,
 * `corr` a request's correlation id (a response carries its request's), `msg` the message's label.
 */
export interface NetEvents {
  /** A client opened a connection to `to`. */
  "net.connect": { conn: number; to: string };
  /** The client side closed a connection: requests in flight report a disconnect. */
  "net.close": { conn: number; reason: string };
  /** A client sent a request to `to`. */
  "net.send": { conn: number; corr: number; to: string; msg: string };
  /** A request reached its server (`from` is the client). */
  "net.deliver": { conn: number; corr: number; from: string; msg: string };
  /** A server answered a request (the response leaves for `to`, the client). */
  "net.reply": { conn: number; corr: number; to: string; msg: string };
  /** A response reached its client, which was waiting for it. */
  "net.response": { conn: number; corr: number; msg: string };
  /** A response reached a client that had closed the connection or given up on the request. */
  "net.late-response": { conn: number; corr: number; msg: string };
  /** The server side closed a connection without answering; the client notices one latency later. */
  "net.server-close": { conn: number; reason: string };
  /** The node's process stopped: connections to it die, requests reaching it are refused. */
  "net.node-down": { reason: string };
  /** The node's process runs again. */
  "net.node-up": Record<string, never>;
  /**
   * A message was lost: cut by a partition or lost on the link, or a request that reached a
   * server restarted since the connection was made (no correlation id then).
   */
  "net.drop":
    | { conn: number; corr: number; cause: "partition" | "loss"; dir: Direction }
    | { conn: number; cause: "server-restarted"; dir: "request" };
  /** TCP model: a message's first transmission was lost; TCP retransmits it (it arrives late, once). */
  "net.retransmit": { conn: number; corr: number; dir: Direction };
  /**
   * TCP model: a message reached a partitioned link (or queued behind one held there); it is
   * retransmitted when the partition heals, at `untilMs`, in its connection's order.
   */
  "net.partition-hold": { conn: number; corr: number; dir: Direction; untilMs: number };
  /** The network sent a second copy of a message. */
  "net.duplicate": { conn: number; corr: number; dir: Direction };
  /** A copy of a message took the link's slow path (`copy` 1 is a duplicate). */
  "net.slow": { conn: number; corr: number; dir: Direction; copy: number; delayMs: number };
  /** A copy of a message will arrive before an earlier message of its connection. */
  "net.overtake": { conn: number; corr: number; dir: Direction; copy: number; delayMs: number };
  /** A script took a message out of the network (held message `held`). */
  "net.hold": { held: number; conn: number; corr: number; dir: Direction; to: string; msg: string };
  /** A script delivered a held message and stopped holding it. */
  "net.release": { held: number; conn: number; corr: number; dir: Direction; msg: string };
  /** A script delivered a copy of a held message and keeps holding the original. */
  "net.held-copy": { held: number; conn: number; corr: number; dir: Direction; msg: string };
  /** A script dropped a held message: it is never delivered. */
  "net.drop-held": { held: number; conn: number; corr: number };
  /** A node takes no message until `untilMs` (messages to it wait). */
  "fault.stall": { untilMs: number };
  /** Every message from this node to `to` is lost until `untilMs`. */
  "fault.partition": { to: string; untilMs: number };
}

/** Which way a message travels on its connection. */
export type Direction = "request" | "response";

/**
 * Display-only fields a recorded trace adds to some kinds after the hashed ones (never hashed: see
 * Trace.emit's `annotate`): a message's key fields as short text, for diagrams.
 */
export interface NetAnnotations {
  "net.send": { detail: string };
  "net.reply": { detail: string };
}
