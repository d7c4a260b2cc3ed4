import type { KafkaHarness } from "../../harness/harness-process.js";
import { CLIENT_ERRORS, type ClientAnswer, type ClientCase, type ClientClass, DISCONNECTED } from "./client-cases.js";

/** The `transactionManager` request of one cell (jvm/PROTOCOL.md). */
export function clientRequest(c: ClientCase): Record<string, unknown> {
  const endTxn = c.api === "EndTxn(COMMIT)" || c.api === "EndTxn(ABORT)";
  const bump = c.api === "InitProducerId(bump)";
  return {
    service: "transactionManager",
    transactionVersion: c.transactionVersion,
    api: endTxn ? "EndTxn" : bump ? "InitProducerId" : c.api,
    ...(endTxn ? { commit: c.api === "EndTxn(COMMIT)" } : {}),
    ...(bump ? { bump: true } : {}),
    error: c.error,
  };
}

/** Kafka's answer to one cell: the release's own producer classes, through the harness. */
export async function kafkaClientAnswer(harness: KafkaHarness, c: ClientCase): Promise<ClientAnswer> {
  const r = await harness.request(clientRequest(c));
  if (c.error !== DISCONNECTED && r.errorCode !== CLIENT_ERRORS[c.error])
    throw new Error(
      `Kafka ${harness.release.release} codes ${c.error} as ${String(r.errorCode)}, the table as ${CLIENT_ERRORS[c.error]}`,
    );
  const lastError = r.lastError as string | null;
  return {
    sent: r.sent as boolean,
    before: r.before as string,
    transactionV2: r.transactionV2 as boolean,
    state: r.state as string,
    class: r.class as ClientClass,
    epochBumpRequired: r.epochBumpRequired as boolean,
    requeued: r.requeued as boolean,
    coordinatorLookup: r.coordinatorLookup as ClientAnswer["coordinatorLookup"],
    lastError: lastError && r.lastErrorCause ? `${lastError} (cause ${String(r.lastErrorCause)})` : lastError,
    detail: {
      requestVersion: r.requestVersion,
      result: r.result,
      thrown: r.thrown,
      queued: r.queued,
    },
  };
}
