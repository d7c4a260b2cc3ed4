import { at } from "./format.js";
import type { GhostLedger } from "./ghost-ledger.js";
import type { Violation } from "./violation.js";

/**
 * After an unclean leader election a partition's log is whatever the elected replica had: a replica
 * outside the ISR became leader (unclean.leader.election.enable=true), and every replica truncated
 * to it. Acknowledged records are gone, and markers too, leaving transactions open that a later
 * marker closes. Kafka allows this; so what the oracle finds at such a partition afterwards is the
 * unclean election's doing, and is reported as such. Returns how to say so, or null when the
 * partition had no unclean election by `atMs`.
 */
export function uncleanElectionAt(
  ledger: GhostLedger,
  partition: string,
  atMs: number,
): { summary: string; lines: string[] } | null {
  const elections = ledger.leaderChanges.filter(
    (c) => c.partition === partition && c.cause === "unclean" && c.atMs <= atMs,
  );
  const first = elections[0];
  if (!first) return null;
  const lines = elections.map(
    (c) =>
      `${at(c.atMs)} unclean election at ${partition}: ${c.leader} (not in the ISR) became leader at epoch ${c.leaderEpoch} after ${c.previousLeader ?? "no leader"}; what only the old leader had is gone (unclean.leader.election.enable=true allows it)`,
  );
  for (const t of ledger.truncations)
    if (t.partition === partition && t.atMs >= first.atMs && t.atMs <= atMs)
      lines.push(
        `${at(t.atMs)} ${t.broker} truncated ${partition} to offset ${t.toOffset}, dropping ${t.removed.length} batches`,
      );
  return {
    summary: `after the unclean election at ${partition} (${first.leader}, leader epoch ${first.leaderEpoch})`,
    lines,
  };
}

/** Kinds about a partition's contents or its transactions, which an unclean election can explain. */
const ATTRIBUTABLE: ReadonlySet<string> = new Set([
  "stale-marker",
  "outcome-mismatch",
  "hanging-transaction",
  "aborted-read",
  "lost-write",
  "torn-transaction",
  "premature-read",
  "duplicate",
  "non-monotonic",
]);

/** The violation as the unclean election's doing when its partition had one before it happened; else itself. */
export function attributeToUncleanElection(ledger: GhostLedger, v: Violation): Violation {
  if (v.partition === undefined || !ATTRIBUTABLE.has(v.kind)) return v;
  const unclean = uncleanElectionAt(ledger, v.partition, v.atMs);
  if (!unclean) return v;
  return {
    ...v,
    kind: "unclean-election",
    summary: `${unclean.summary}: ${v.summary}`,
    explanation: [...v.explanation, ...unclean.lines],
  };
}
