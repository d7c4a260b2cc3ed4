import type { PartitionKey } from "./common/types.js";

/**
 * The group APIs of the consume-transform-produce loop (issue 17), typed records with Kafka's field
 * names: classic membership (JoinGroup, SyncGroup, Heartbeat, LeaveGroup), offsets (OffsetCommit,
 * TxnOffsetCommit, OffsetFetch) and the producer's AddOffsetsToTxn to its transaction coordinator.
 * One error per request where Kafka answers per partition: the model's validation fails them all alike.
 */
export type GroupRequest =
  | JoinGroupRequest
  | SyncGroupRequest
  | HeartbeatRequest
  | LeaveGroupRequest
  | OffsetCommitRequest
  | TxnOffsetCommitRequest
  | OffsetFetchRequest
  | AddOffsetsToTxnRequest;

export type GroupResponse =
  | JoinGroupResponse
  | SyncGroupResponse
  | HeartbeatResponse
  | LeaveGroupResponse
  | OffsetCommitResponse
  | TxnOffsetCommitResponse
  | OffsetFetchResponse
  | AddOffsetsToTxnResponse;

/** The member fields every group request after JoinGroup carries. */
export interface MemberFields {
  groupId: string;
  memberId: string;
  groupInstanceId: string | null;
  generationId: number;
}

export interface JoinGroupRequest {
  api: "JoinGroup";
  groupId: string;
  /** Empty to join as a new member. */
  memberId: string;
  groupInstanceId: string | null;
}

export interface JoinGroupResponse {
  api: "JoinGroup";
  errorCode: number;
  memberId: string;
  generationId: number;
  leaderId: string | null;
}

export interface SyncGroupRequest extends MemberFields {
  api: "SyncGroup";
}

export interface SyncGroupResponse {
  api: "SyncGroup";
  errorCode: number;
  assignment: PartitionKey[];
}

export interface HeartbeatRequest extends MemberFields {
  api: "Heartbeat";
}

export interface HeartbeatResponse {
  api: "Heartbeat";
  errorCode: number;
}

export interface LeaveGroupRequest {
  api: "LeaveGroup";
  groupId: string;
  memberId: string;
  groupInstanceId: string | null;
}

export interface LeaveGroupResponse {
  api: "LeaveGroup";
  errorCode: number;
}

export interface OffsetCommitRequest extends MemberFields {
  api: "OffsetCommit";
  /** Each partition's offset, with the application's metadata string (absent: none). */
  offsets: { partition: PartitionKey; offset: number; metadata?: string }[];
}

export interface OffsetCommitResponse {
  api: "OffsetCommit";
  errorCode: number;
}

/** TxnOffsetCommit: v3+ carries the member fields (KIP-447); v5 is TV2 (the coordinator's verification adds the partition). */
export interface TxnOffsetCommitRequest extends MemberFields {
  api: "TxnOffsetCommit";
  version: number;
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  offsets: { partition: PartitionKey; offset: number }[];
  ghostTxn: string | null;
}

export interface TxnOffsetCommitResponse {
  api: "TxnOffsetCommit";
  errorCode: number;
}

export interface OffsetFetchRequest {
  api: "OffsetFetch";
  groupId: string;
  partitions: PartitionKey[];
  /** KIP-447 (v7+): answer UNSTABLE_OFFSET_COMMIT while a transaction holds pending offsets. */
  requireStable: boolean;
}

export interface OffsetFetchResponse {
  api: "OffsetFetch";
  errorCode: number;
  partitions: { partition: PartitionKey; offset: number; errorCode: number }[];
}

/** AddOffsetsToTxn (TV0/1): the group's __consumer_offsets partition joins the transaction. */
export interface AddOffsetsToTxnRequest {
  api: "AddOffsetsToTxn";
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  groupId: string;
  ghostTxn: string | null;
}

export interface AddOffsetsToTxnResponse {
  api: "AddOffsetsToTxn";
  errorCode: number;
}
