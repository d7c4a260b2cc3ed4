import type { ViolationKind, Violation } from "../violation.js";
import { at } from "../format.js";
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
  const unclean = kind === "lost-write" || kind === "torn-transaction" ? uncleanLoss(ctx, fields.place.partition) : null;
  return {
    kind: unclean ? "unclean-election-loss" : kind,
    summary: unclean ? `${unclean.summary}: ${fields.summary}` : fields.summary,
    explanation: unclean ? [...fields.explanation, ...unclean.lines] : fields.explanation,
    atMs: fields.atMs,
    partition: fields.place.partition,
    ...(leader ? { broker: leader.broker, brokerRelease: leader.brokerRelease } : {}),
    transaction: fields.transaction,
  };
}

/**
 * Records of a partition that had an unclean leader election are lost by design, not by a bug: a
 * replica outside the ISR became leader (unclean.leader.election.enable) and every replica
 * truncated to its log. Returns how to say so, or null when the partition never had one.
 */
function uncleanLoss(ctx: ClientCheckContext, partition: string): { summary: string; lines: string[] } | null {
  const elections = ctx.ledger.leaderChanges.filter((c) => c.partition === partition && c.cause === "unclean");
  const first = elections[0];
  if (!first) return null;
  const lines = elections.map(
    (c) =>
      `${at(c.atMs)} unclean election at ${partition}: ${c.leader} (not in the ISR) became leader at epoch ${c.leaderEpoch} after ${c.previousLeader ?? "no leader"}; what only the old leader had is gone (unclean.leader.election.enable=true allows it)`,
  );
  for (const t of ctx.ledger.truncations)
    if (t.partition === partition && t.atMs >= first.atMs)
      lines.push(`${at(t.atMs)} ${t.broker} truncated ${partition} to offset ${t.toOffset}, dropping ${t.removed.length} batches`);
  return { summary: `lost to the unclean election at ${partition} (${first.leader}, leader epoch ${first.leaderEpoch})`, lines };
}

/** Every visible place of a transaction's records in the final read, in partition/offset order. */
export function visiblePlaces(f: TxnFacts): RecordPlace[] {
  return [...f.visible.values()]
    .flat()
    .sort((a, b) => (a.partition === b.partition ? a.offset - b.offset : a.partition < b.partition ? -1 : 1));
}
