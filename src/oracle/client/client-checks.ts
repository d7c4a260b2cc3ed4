import type { GhostLedger } from "../ghost-ledger.js";
import type { Violation } from "../violation.js";
import { checkAbortedReads } from "./aborted-read.js";
import { buildClientCheckContext } from "./check-context.js";
import type { ClientView } from "./client-view.js";
import { checkDuplicates } from "./duplicate.js";
import { checkLostWrites } from "./lost-write.js";
import { checkNonMonotonic } from "./non-monotonic.js";
import { checkPrematureReads } from "./premature-read.js";
import { checkTornTransactions } from "./torn-transaction.js";

/**
 * The black-box half of the oracle, as Jepsen names the anomalies: what read_committed consumers
 * saw (polls during the run, and a final read after the quiet period) against what producers were
 * told and what the coordinator decided. At most one violation per transaction and kind.
 */
export function checkClientView(ledger: GhostLedger, view: ClientView): Violation[] {
  const ctx = buildClientCheckContext(ledger, view);
  return [
    ...checkAbortedReads(ctx, view.finalReads),
    ...checkLostWrites(ctx),
    ...checkTornTransactions(ctx),
    ...checkPrematureReads(ctx),
    ...checkDuplicates(ctx),
    ...checkNonMonotonic(ctx, view.finalReads),
  ];
}
