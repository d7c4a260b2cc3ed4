import type { ViolationKind, Violation } from "../violation.js";
import type { GhostLedger } from "../ghost-ledger.js";
import { type ClientView, leadersOf, type PolledRecord, pollsByTransaction, type RecordPlace } from "./client-view.js";
import { ClientExplainer } from "./explain-client.js";
import { collectTxnFacts, type TxnFacts } from "./txn-facts.js";

/** What every client-visible check reads: per-transaction facts, polls, leaders and the explainer. */
export interface ClientCheckContext {
  facts: Map<string, TxnFacts>;
  polls: Map<string, PolledRecord[]>;
  leaders: ReturnType<typeof leadersOf>;
  explain: ClientExplainer;
  ledger: GhostLedger;
  endMs: number;
}

export function buildClientCheckContext(ledger: GhostLedger, view: ClientView): ClientCheckContext {
  return {
    facts: collectTxnFacts(ledger, view),
    polls: pollsByTransaction(view),
    leaders: leadersOf(view),
    explain: new ClientExplainer(ledger),
    ledger,
    endMs: view.endMs,
  };
}

/** A client-visible violation placed at the partition (and its leader) where it shows first. */
export function clientViolation(
  ctx: ClientCheckContext,
  kind: ViolationKind,
  fields: { summary: string; explanation: string[]; atMs: number; place: RecordPlace; transaction: string },
): Violation {
  const leader = ctx.leaders.get(fields.place.partition);
  return {
    kind,
    summary: fields.summary,
    explanation: fields.explanation,
    atMs: fields.atMs,
    partition: fields.place.partition,
    ...(leader ? { broker: leader.broker, brokerRelease: leader.brokerRelease } : {}),
    transaction: fields.transaction,
  };
}

/** Every visible place of a transaction's records in the final read, in partition/offset order. */
export function visiblePlaces(f: TxnFacts): RecordPlace[] {
  return [...f.visible.values()]
    .flat()
    .sort((a, b) => (a.partition === b.partition ? a.offset - b.offset : a.partition < b.partition ? -1 : 1));
}
