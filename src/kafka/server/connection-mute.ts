import type { KafkaResponse } from "../protocol.js";
import type { Inbound } from "./broker-process.js";

/**
 * SocketServer's Processor: once it has read a complete request from a connection it mutes the
 * connection (Selector.mute) and unmutes it only when that request's response has been sent, so a
 * broker handles the requests of one connection one at a time, in the order they came. A producer
 * pipelines up to max.in.flight.requests.per.connection produce requests to a leader; the leader
 * reads the second only after it answered the first (KAFKA-14904: a first batch refused by its
 * verification, and the next one, read after that answer, verified once the coordinator's write had
 * finished).
 *
 * A connection's next request is read in a later step than the response (the Processor's next poll),
 * never inside the handler that answered. A request the handler answers by closing the connection
 * drops the ones queued behind it, as the closed channel does.
 */
export class ConnectionMute {
  /** Connections with a request in progress, and the requests read from them meanwhile. */
  private readonly muted = new Map<number, Inbound[]>();

  constructor(
    private readonly sim: { schedule(delayMs: number, action: () => void): unknown },
    private readonly handle: (request: Inbound) => void,
    private readonly stopped: () => boolean,
  ) {}

  receive(request: Inbound): void {
    const queue = this.muted.get(request.connectionId);
    if (queue) {
      queue.push(request);
      return;
    }
    this.muted.set(request.connectionId, []);
    this.dispatch(request);
  }

  private dispatch(request: Inbound): void {
    const id = request.connectionId;
    let answered = false;
    const unmute = (): void => {
      if (answered) return;
      answered = true;
      this.sim.schedule(0, () => {
        if (this.stopped()) return;
        const next = this.muted.get(id)?.shift();
        if (next) this.dispatch(next);
        else this.muted.delete(id);
      });
    };
    this.handle({
      connectionId: id,
      from: request.from,
      correlationId: request.correlationId,
      body: request.body,
      respond: (body: KafkaResponse) => {
        request.respond(body);
        unmute();
      },
      closeConnection: (reason: string) => {
        request.closeConnection(reason);
        answered = true;
        this.muted.delete(id);
      },
    });
  }
}
