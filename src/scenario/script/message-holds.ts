import type { KafkaRequest, KafkaResponse } from "../../kafka/protocol.js";
import type { HeldMessage, InterceptedMessage, Interceptor } from "../../sim/network.js";
import { transactionalIdsOf } from "./observation.js";

export type HeldKafkaMessage = HeldMessage<KafkaRequest, KafkaResponse>;

/** A hold step's rule: the next message that matches it is taken out of the network and kept under its name. */
export interface HoldRule {
  name: string;
  api: string;
  from: string;
  to: string;
  direction: "request" | "response";
  transactionalId: string | undefined;
  /** What the rule caught (null until a message matched). */
  held: HeldKafkaMessage | null;
}

/** A response a step is waiting for: the next one on (connection, correlation id). */
export interface ResponseWatch {
  connectionId: number;
  correlationId: number;
  response: KafkaResponse | null;
}

/**
 * The script's interceptor on the Network: the hold rules and what they caught, and the responses
 * that release and duplicate steps wait for. Each rule catches one message; a caught message stays
 * out of the network until a step releases, duplicates or drops it.
 */
export class MessageHolds implements Interceptor<KafkaRequest, KafkaResponse> {
  private readonly rules = new Map<string, HoldRule>();
  private readonly watches: ResponseWatch[] = [];
  /** The rule that took the message the network is about to hand to onHeld. */
  private catching: HoldRule | null = null;

  /** @param resolve a node a rule names, as it is now (`coordinator` is the __transaction_state leader). */
  constructor(private readonly resolve: (node: string) => string) {}

  add(rule: Omit<HoldRule, "held">): void {
    this.rules.set(rule.name, { ...rule, held: null });
  }

  /** The rule of an earlier hold step (the scenario's checks made sure there is one). */
  rule(name: string): HoldRule {
    const rule = this.rules.get(name);
    if (!rule) throw new Error(`no hold step named ${name}`);
    return rule;
  }

  /** Catch the next response on (connection, correlation id), whether or not a rule holds it. */
  watch(connectionId: number, correlationId: number): ResponseWatch {
    const w: ResponseWatch = { connectionId, correlationId, response: null };
    this.watches.push(w);
    return w;
  }

  unwatch(w: ResponseWatch): void {
    const i = this.watches.indexOf(w);
    if (i >= 0) this.watches.splice(i, 1);
  }

  inspect(m: InterceptedMessage<KafkaRequest, KafkaResponse>): boolean {
    if (m.direction === "response") {
      for (const w of this.watches)
        if (w.response === null && w.connectionId === m.connectionId && w.correlationId === m.correlationId)
          w.response = m.body as KafkaResponse;
    }
    for (const rule of this.rules.values()) {
      if (rule.held !== null || !this.matches(rule, m)) continue;
      this.catching = rule;
      return true;
    }
    return false;
  }

  onHeld(held: HeldKafkaMessage): void {
    if (!this.catching) throw new Error("a message was held without a rule");
    this.catching.held = held;
    this.catching = null;
  }

  private matches(rule: HoldRule, m: InterceptedMessage<KafkaRequest, KafkaResponse>): boolean {
    if (m.label !== rule.api || m.direction !== rule.direction) return false;
    if (m.from !== this.resolve(rule.from) || m.to !== this.resolve(rule.to)) return false;
    return rule.transactionalId === undefined || transactionalIdsOf(m.body).includes(rule.transactionalId);
  }
}
