import { Errors } from "../common/errors.js";
import { GroupCoordinator } from "../coordinator/group/group-coordinator.js";
import { consumerOffsetsPartitionKey } from "../coordinator/group/group-partitioning.js";
import type { GroupRequest } from "../group-protocol.js";
import type { BrokerProcess, Inbound } from "./broker-process.js";
import { groupAnswered, groupErrorResponse, writeGroupRecords } from "./group-write.js";
import { handleTxnOffsetCommitRequest } from "./txn-offset-commit-request.js";

/**
 * KafkaApis.handleAddOffsetsToTxnRequest: the group's __consumer_offsets partition joins the
 * transaction through the transaction coordinator's AddPartitionsToTxn handling.
 */
export function handleAddOffsetsToTxnRequest(
  process: BrokerProcess,
  request: Inbound,
  body: Extract<GroupRequest, { api: "AddOffsetsToTxn" }>,
): void {
  const respond = (errorCode: number) => request.respond({ api: "AddOffsetsToTxn", errorCode });
  const settings = process.shared.groupCoordinator;
  if (!settings) return respond(Errors.UNKNOWN_TOPIC_OR_PARTITION);
  const partition = consumerOffsetsPartitionKey(GroupCoordinator.partitionOf(body.groupId, settings));
  process.coordinator.handleAddPartitionsToTxn(
    {
      api: "AddPartitionsToTxn",
      version: 3,
      transactionalId: body.transactionalId,
      producerId: body.producerId,
      producerEpoch: body.producerEpoch,
      partitions: [partition],
      verifyOnly: false,
      ghostTxn: body.ghostTxn,
    },
    (errorCode, results) => respond(errorCode !== Errors.NONE ? errorCode : (results[0]?.errorCode ?? Errors.NONE)),
  );
}

/** The group APIs, answered by the shard of the group's __consumer_offsets partition if this broker leads it. */
export function handleGroupRequest(
  process: BrokerProcess,
  request: Inbound,
  body: Exclude<GroupRequest, { api: "AddOffsetsToTxn" }>,
): void {
  const lookup = process.groups?.shardForGroup(body.groupId) ?? { kind: "error", errorCode: Errors.NOT_COORDINATOR };
  if (lookup.kind === "error") return request.respond(groupErrorResponse(body.api, lookup.errorCode));
  const shard = lookup.shard;
  const key = consumerOffsetsPartitionKey(shard.partitionIndex);
  const { api, groupId } = body;
  const emit = (errorCode: number, memberId: string, generationId: number) =>
    groupAnswered(process, {
      partition: key,
      api,
      groupId,
      memberId,
      generationId,
      errorCode,
      producerId: -1,
      ghostTxn: null,
    });
  const now = process.ctx.sim.nowMs;
  switch (body.api) {
    case "OffsetFetch": {
      const partitions = shard.fetchOffsets(body.groupId, body.partitions, body.requireStable);
      emit(partitions.find((p) => p.errorCode !== Errors.NONE)?.errorCode ?? Errors.NONE, "", -1);
      return request.respond({ api: "OffsetFetch", errorCode: Errors.NONE, partitions: [...partitions] });
    }
    case "SyncGroup": {
      const r = shard.syncGroup(body.groupId, body.memberId, body.groupInstanceId, body.generationId, now);
      emit(r.errorCode, body.memberId, body.generationId);
      return request.respond({ api: "SyncGroup", errorCode: r.errorCode, assignment: [...r.assignment] });
    }
    case "Heartbeat": {
      const errorCode = shard.heartbeat(body.groupId, body.memberId, body.groupInstanceId, body.generationId, now);
      emit(errorCode, body.memberId, body.generationId);
      return request.respond({ api: "Heartbeat", errorCode });
    }
    case "TxnOffsetCommit":
      return handleTxnOffsetCommitRequest(process, request, body, shard);
    default:
      // JoinGroup, LeaveGroup and OffsetCommit may write: through the leader's append path.
      return writeGroupRecords(process, key, request, body.api, () => {
        if (body.api === "JoinGroup") {
          const r = shard.joinGroup(body.groupId, body.memberId, body.groupInstanceId, now);
          emit(r.errorCode, r.memberId, r.generationId);
          return { api: "JoinGroup", ...r };
        }
        if (body.api === "LeaveGroup") {
          const errorCode = shard.leaveGroup(body.groupId, body.memberId, body.groupInstanceId, now);
          emit(errorCode, body.memberId, -1);
          return { api: "LeaveGroup", errorCode };
        }
        const errorCode = shard.commitOffsets(body, body.offsets);
        emit(errorCode, body.memberId, body.generationId);
        return { api: "OffsetCommit", errorCode };
      });
  }
}
