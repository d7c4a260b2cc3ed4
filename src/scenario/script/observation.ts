import { describeRule } from "../../kafka/broker/partition-log.js";
import { errorName } from "../../kafka/common/errors.js";
import type { MarkerOutcome } from "../../kafka/ghost.js";
import type { KafkaRequest, KafkaResponse } from "../../kafka/protocol.js";
import { ByteReader } from "../../kafka/wire/byte-buffer.js";
import { decodeWriteTxnMarkersResponse, readRequestHeader } from "../../kafka/wire/write-txn-markers.js";

/** What a step saw come back, in the terms its expectations use. */
export interface Observation {
  /** One line for the step log. */
  outcome: string;
  /** Error codes seen (one per partition for WriteTxnMarkers); empty when nothing came back. */
  errors: number[];
  producerId?: number;
  producerEpoch?: number;
  /** Whose coordinator state an `expect.state` refers to. */
  transactionalId?: string;
  /** Problems the step found by itself (nothing held, no response, misuse). */
  problems: string[];
  /** What a check saw, field by field, for its `expect` to compare (absent when it saw nothing). */
  fields?: Record<string, unknown>;
}

export function noResponse(what: string, transactionalId?: string): Observation {
  return {
    outcome: `no response (${what})`,
    errors: [],
    problems: [`expected a response, found none (${what})`],
    ...(transactionalId ? { transactionalId } : {}),
  };
}

/** The transactional.ids a message concerns (for hold filters and state expectations). */
export function transactionalIdsOf(body: KafkaRequest | KafkaResponse): string[] {
  switch (body.api) {
    case "WriteTxnMarkers":
      return "ghosts" in body ? [...new Set(body.ghosts.map((g) => g.transactionalId))] : [];
    case "InitProducerId":
    case "AddPartitionsToTxn":
    case "EndTxn":
      return "transactionalId" in body && body.transactionalId !== null ? [body.transactionalId] : [];
    case "Produce":
      return "transactionalId" in body && body.transactionalId !== null ? [body.transactionalId] : [];
    default:
      return [];
  }
}

/** The WriteTxnMarkers version a request was encoded with (from its header). */
export function writeTxnMarkersVersionOf(bytes: Uint8Array): number {
  return readRequestHeader(new ByteReader(bytes)).apiVersion;
}

/** How the leader judged each marker of one delivered request copy (from the ghost ledger). */
export function describeMarkerOutcomes(outcomes: readonly MarkerOutcome[]): string {
  return outcomes
    .map((o) => {
      const judged =
        o.rule === "unchecked"
          ? ""
          : `, ${describeRule(o.rule)}: marker epoch ${o.markerEpoch}, producer epoch ${o.storedEpochBefore}`;
      const closed = o.completed ? `, closed offsets ${o.completed.firstOffset}..${o.completed.lastOffset}` : "";
      return `${o.partition} on ${o.broker} (${o.brokerRelease}): ${errorName(o.errorCode)} (v${o.requestVersion}, TransactionVersion ${o.transactionVersionSeen}${judged}${closed})`;
    })
    .join("; ");
}

/** Error codes, ids and epochs of a response, with a one-line description. */
export function observeResponse(
  response: KafkaResponse,
  requestVersion: number | null,
  transactionalId?: string,
): Observation {
  const base = { problems: [] as string[], ...(transactionalId ? { transactionalId } : {}) };
  switch (response.api) {
    case "WriteTxnMarkers": {
      const decoded = decodeWriteTxnMarkersResponse(requestVersion ?? 1, response.bytes);
      const errors: number[] = [];
      const parts: string[] = [];
      for (const m of decoded.markers) {
        for (const t of m.topics) {
          for (const p of t.partitions) {
            errors.push(p.errorCode);
            parts.push(`${t.name}-${p.partitionIndex} ${errorName(p.errorCode)}`);
          }
        }
      }
      return { ...base, outcome: `WriteTxnMarkers response: ${parts.join(", ")}`, errors };
    }
    case "InitProducerId":
    case "EndTxn":
      return {
        ...base,
        outcome: `${response.api} ${errorName(response.errorCode)}${response.producerId >= 0 ? `, producerId ${response.producerId}, producerEpoch ${response.producerEpoch}` : ""}`,
        errors: [response.errorCode],
        ...(response.producerId >= 0 ? { producerId: response.producerId, producerEpoch: response.producerEpoch } : {}),
      };
    case "AddPartitionsToTxn": {
      const errors =
        response.errorCode !== 0 || response.results.length === 0
          ? [response.errorCode]
          : response.results.map((r) => r.errorCode);
      const detail = response.results.map((r) => `${r.partition} ${errorName(r.errorCode)}`).join(", ");
      return {
        ...base,
        outcome: `AddPartitionsToTxn ${errorName(response.errorCode)}${detail ? ` (${detail})` : ""}`,
        errors,
      };
    }
    case "Produce":
      return {
        ...base,
        outcome: `Produce ${errorName(response.errorCode)}${response.errorCode === 0 ? ` at offset ${response.baseOffset}` : response.errorMessage ? ` (${response.errorMessage})` : ""}`,
        errors: [response.errorCode],
      };
    default:
      return { ...base, outcome: `${response.api} ${errorName(response.errorCode)}`, errors: [response.errorCode] };
  }
}
