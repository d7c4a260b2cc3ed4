import { Errors } from "../common/errors.js";
import type { PartitionKey } from "../common/types.js";
import { coordinatorErrorFor } from "../coordinator/transaction-state-manager.js";
import type { GroupAnswer } from "../ghost.js";
import type { GroupRequest } from "../group-protocol.js";
import type { KafkaResponse } from "../protocol.js";
import type { BrokerProcess, Inbound } from "./broker-process.js";

/** The group APIs the group coordinator answers (AddOffsetsToTxn goes to the transaction coordinator). */
export type GroupApi = Exclude<GroupRequest, { api: "AddOffsetsToTxn" }>["api"];

/**
 * A group write on the leader of the offsets partition: the shard writes into the log, and the
 * answer waits until the in-sync replicas have it (CoordinatorRuntime's deferred events on the
 * high watermark). Refused appends answer as GroupCoordinatorService.normalizeException maps them
 * (the transaction coordinator's mapping of the same append errors).
 */
export function writeGroupRecords(
  process: BrokerProcess,
  key: PartitionKey,
  request: Inbound,
  api: GroupApi,
  write: () => KafkaResponse & { errorCode: number },
): void {
  process.replicas.appendToLeader(
    key,
    process.ctx.config.requestTimeoutMs,
    (log) => {
      const before = log.logEndOffset;
      const response = write();
      return { waitForOffset: log.logEndOffset > before ? log.logEndOffset : null, value: response };
    },
    (errorCode, response) => {
      if (errorCode !== Errors.NONE || response === null)
        return request.respond(groupErrorResponse(api, coordinatorErrorFor(errorCode)));
      request.respond(response);
    },
  );
}

/** A group API's answer carrying only an error. */
export function groupErrorResponse(api: GroupApi, errorCode: number): KafkaResponse {
  switch (api) {
    case "JoinGroup":
      return { api, errorCode, memberId: "", generationId: -1, leaderId: null };
    case "SyncGroup":
      return { api, errorCode, assignment: [] };
    case "OffsetFetch":
      return { api, errorCode, partitions: [] };
    default:
      return { api, errorCode };
  }
}

/** The trace's group.request, and the ghost's view of the same answer (coverage of group states). */
export function groupAnswered(process: BrokerProcess, answer: Omit<GroupAnswer, "broker" | "atMs">): void {
  const { partition, api, groupId, memberId, generationId, errorCode, producerId, ghostTxn } = answer;
  process.ctx.sim.emit(process.brokerId, "group.request", {
    api,
    group: groupId,
    member: memberId,
    gen: generationId,
    error: errorCode,
  });
  process.ctx.ghost.groupRequestAnswered?.({
    broker: process.brokerId,
    partition,
    api,
    groupId,
    memberId,
    generationId,
    errorCode,
    producerId,
    ghostTxn,
    atMs: process.ctx.sim.nowMs,
  });
}
