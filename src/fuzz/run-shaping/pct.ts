import type { ChoiceSource } from "../../sim/choice-tape.js";
import type { DeliveryPolicy, OutboundMessage } from "../../sim/network.js";

/** Which messages PCT schedules: WriteTxnMarkers requests only, or every request and response. */
export type PctScope = "markers" | "all";
export const PCT_SCOPES: readonly PctScope[] = ["markers", "all"];

export interface PctParams {
  /** Bug depth d: d - 1 change points per run. */
  depth: number;
  scope: PctScope;
  /** m: scoped messages in a typical run (from pilot runs); change points are drawn in [1, m]. */
  messagesPerRun: number;
  /** c: chains (links) carrying scoped messages in the pilot runs (for the stated bound). */
  chains: number;
}

/** Priority levels of a chain; a chain's level sets where its delays sit in the link's range. */
const PRIORITY_LEVELS = 8;

export function inPctScope(scope: PctScope, message: OutboundMessage): boolean {
  return scope === "all" || (message.direction === "request" && message.label === "WriteTxnMarkers");
}

/**
 * Probabilistic concurrency testing (Burckhardt et al. 2010) adapted to timed message passing, in
 * the spirit of PCTCP (Ozkan et al. 2018): a chain is a directed link; each chain draws a priority
 * that fixes where its messages' delays sit within the link's base range (so chains keep a stable
 * relative order); d - 1 change points, drawn uniformly over the first m scoped messages, demote
 * the message sent at that point to the link's slow range (it is delivered after what was sent
 * around it, as a lowered priority would be). Only while faults are on; other fault kinds keep
 * the scenario's rates. Every draw is on the choice tape.
 */
export class PctDeliveryPolicy implements DeliveryPolicy {
  private readonly chainPriority = new Map<string, number>();
  private readonly changePoints: number[] = [];
  private scopedSent = 0;
  private readonly demoted: string[] = [];

  constructor(
    private readonly params: PctParams,
    private readonly choices: ChoiceSource,
  ) {
    for (let i = 0; i < params.depth - 1; i++)
      this.changePoints.push(1 + choices.pick("pct:change", Math.max(1, params.messagesPerRun)));
  }

  delayMs(message: OutboundMessage): number | null {
    if (!message.faultsActive || !inPctScope(this.params.scope, message)) return null;
    this.scopedSent++;
    const profile = message.profile;
    if (this.changePoints.includes(this.scopedSent)) {
      this.demoted.push(`${message.label} ${message.direction} ${message.from}>${message.to} (#${this.scopedSent})`);
      const lowMs = Math.max(profile.slowMinMs, profile.maxMs);
      return this.choices.between("pct:demote", lowMs, Math.max(lowMs, profile.slowMaxMs));
    }
    const chain = `${message.from}>${message.to}`;
    let priority = this.chainPriority.get(chain);
    if (priority === undefined) {
      priority = this.choices.pick("pct:priority", PRIORITY_LEVELS);
      this.chainPriority.set(chain, priority);
    }
    return profile.minMs + Math.floor((priority * (profile.maxMs - profile.minMs)) / (PRIORITY_LEVELS - 1));
  }

  get scopedMessages(): number {
    return this.scopedSent;
  }

  get chains(): number {
    return this.chainPriority.size;
  }

  summary(): string {
    return `pct: change points at scoped messages ${[...this.changePoints].sort((a, b) => a - b).join(", ")}${this.demoted.length > 0 ? `; demoted ${this.demoted.join("; ")}` : "; none reached"}`;
  }
}

/**
 * PCT's guarantee for one run: a bug that needs d specific ordering decisions is hit with
 * probability at least 1 / (c * m^(d-1)) for c chains and m scoped messages (Burckhardt et al.,
 * Theorem 9, with chains for threads as in PCTCP).
 */
export function pctBound(depth: number, messagesPerRun: number, chains: number): number {
  return 1 / (Math.max(1, chains) * Math.max(1, messagesPerRun) ** (depth - 1));
}
