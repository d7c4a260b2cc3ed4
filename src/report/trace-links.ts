import { type RecordedEvent, typedEvent } from "../kafka/trace-events.js";
import type { TraceEvent } from "../sim/trace.js";

/** How a message ended. */
export type MessageFate = "delivered" | "dropped" | "late" | "lost";

/**
 * One message of the trace: a request (net.send -> net.deliver) or a response (net.reply ->
 * net.response / net.late-response), paired by (connection, correlation id). A duplicated message
 * gives two links from the same send.
 */
export interface MessageLink {
  direction: "request" | "response";
  conn: number;
  corr: number;
  api: string;
  from: string;
  to: string;
  /** Trace index and time of the send (client's net.send, server's net.reply). */
  sendIndex: number;
  sendMs: number;
  /** Trace index and time of the arrival; null when dropped or still in flight at the end. */
  arriveIndex: number | null;
  arriveMs: number | null;
  fate: MessageFate;
  /** The second copy of a duplicated message. */
  duplicate: boolean;
  /** A server-side close (FIN) rather than a message: net.server-close -> net.close. */
  close?: boolean;
}

/** A message is known by its connection and correlation id (a response carries its request's). */
const key = ({ conn, corr }: { conn: number; corr: number }) => `${conn}:${corr}`;

/** Pair every message of a trace with its arrival. Linear in the trace; the links come in send order. */
export function linkMessages(events: readonly TraceEvent[]): MessageLink[] {
  const links: MessageLink[] = [];
  const open = { request: new Map<string, MessageLink>(), response: new Map<string, MessageLink>() };
  const closes = new Map<number, MessageLink>();
  const start = (e: RecordedEvent<"net.send" | "net.reply">, direction: "request" | "response") => {
    const link: MessageLink = {
      direction,
      conn: e.fields.conn,
      corr: e.fields.corr,
      api: e.fields.msg,
      from: e.node,
      to: e.fields.to,
      sendIndex: e.index,
      sendMs: e.timeMs,
      arriveIndex: null,
      arriveMs: null,
      fate: "lost",
      duplicate: false,
    };
    links.push(link);
    open[direction].set(key(e.fields), link);
  };
  const arrive = (
    e: RecordedEvent<"net.deliver" | "net.response" | "net.late-response">,
    direction: "request" | "response",
    fate: MessageFate,
  ) => {
    const link = open[direction].get(key(e.fields));
    if (!link) return;
    if (link.arriveIndex === null) {
      Object.assign(link, { arriveIndex: e.index, arriveMs: e.timeMs, fate });
    } else {
      // A second arrival of the same message: the network duplicated it.
      links.push({ ...link, arriveIndex: e.index, arriveMs: e.timeMs, fate, duplicate: true });
    }
  };
  for (const event of events) {
    const e = typedEvent(event);
    switch (e.kind) {
      case "net.send":
        start(e, "request");
        break;
      case "net.reply":
        start(e, "response");
        break;
      case "net.deliver":
        arrive(e, "request", "delivered");
        break;
      case "net.response":
        arrive(e, "response", "delivered");
        break;
      case "net.late-response":
        arrive(e, "response", "late");
        break;
      case "net.drop": {
        // A request lost to a server restart has no correlation id: it matches no send.
        const link = "corr" in e.fields ? open[e.fields.dir].get(key(e.fields)) : undefined;
        if (link && link.arriveIndex === null) link.fate = "dropped";
        break;
      }
      case "net.server-close": {
        const link: MessageLink = {
          direction: "response",
          conn: e.fields.conn,
          corr: -1,
          api: "close",
          from: e.node,
          to: "",
          sendIndex: e.index,
          sendMs: e.timeMs,
          arriveIndex: null,
          arriveMs: null,
          fate: "lost",
          duplicate: false,
          close: true,
        };
        closes.set(link.conn, link);
        links.push(link);
        break;
      }
      case "net.close": {
        const link = closes.get(e.fields.conn);
        if (link && link.arriveIndex === null)
          Object.assign(link, { to: e.node, arriveIndex: e.index, arriveMs: e.timeMs, fate: "delivered" });
        break;
      }
    }
  }
  // A FIN whose client never noticed (the run ended first) has no lane to point to.
  return links.filter((l) => !l.close || l.to !== "");
}
