import { Errors } from "../common/errors.js";
import { isConsumerOffsetsPartition } from "../coordinator/group/group-partitioning.js";
import { isTransactionStatePartition } from "../coordinator/transaction-partitioning.js";
import type { FindCoordinatorRequest } from "../fetch-protocol.js";
import type { KafkaResponse } from "../protocol.js";
import type { BrokerProcess, Inbound } from "./broker-process.js";
import { handleAddOffsetsToTxnRequest, handleGroupRequest } from "./group-requests.js";
import { coordinatorOf, groupCoordinatorOf } from "./metadata-cache.js";
import { handleProduceRequest } from "./produce-request.js";
import { handleWriteTxnMarkersRequest } from "./write-txn-markers-request.js";

/**
 * KafkaApis: one running broker process's request handlers, each request routed by its API to the
 * component that answers it (the replica manager, the transaction or the group coordinator).
 */
export class KafkaApis {
  constructor(private readonly process: BrokerProcess) {}

  handle(request: Inbound): void {
    const process = this.process;
    const body = request.body;
    switch (body.api) {
      case "Produce":
        return handleProduceRequest(process, request, body);
      case "WriteTxnMarkers":
        return handleWriteTxnMarkersRequest(process, request, body);
      case "ApiVersions":
        return request.respond({
          api: "ApiVersions",
          errorCode: Errors.NONE,
          writeTxnMarkersMaxVersion: process.release.flags.maxWriteTxnMarkersVersion,
        });
      case "Fetch":
        return process.replicas.fetch(body, (response) => request.respond(response));
      case "Metadata":
        return request.respond(this.metadataResponse());
      case "FindCoordinator":
        return request.respond(this.findCoordinator(body));
      case "InitProducerId":
      case "AddPartitionsToTxn":
      case "EndTxn":
        return process.coordinator.handle(request);
      case "AddOffsetsToTxn":
        return handleAddOffsetsToTxnRequest(process, request, body);
      case "JoinGroup":
      case "SyncGroup":
      case "Heartbeat":
      case "LeaveGroup":
      case "OffsetCommit":
      case "TxnOffsetCommit":
      case "OffsetFetch":
        return handleGroupRequest(process, request, body);
      default:
        throw new Error(`broker ${process.brokerId} cannot handle ${(body as { api: string }).api}`);
    }
  }

  private metadataResponse(): KafkaResponse {
    const image = this.process.image();
    const partitions = [...image.partitions.values()]
      .filter((reg) => !isTransactionStatePartition(reg.partition) && !isConsumerOffsetsPartition(reg.partition))
      .map((reg) => ({ partition: reg.partition, leader: reg.leader, leaderEpoch: reg.leaderEpoch }));
    return { api: "Metadata", errorCode: Errors.NONE, imageOffset: image.offset, partitions };
  }

  /** KafkaApis.getCoordinator(TRANSACTION): from this broker's image; COORDINATOR_NOT_AVAILABLE without a live leader. */
  private findCoordinator(body: FindCoordinatorRequest): KafkaResponse {
    const { shared } = this.process;
    const image = this.process.image();
    const nodeId =
      body.keyType === "GROUP" ? groupCoordinatorOf(image, shared, body.key) : coordinatorOf(image, shared, body.key);
    return {
      api: "FindCoordinator",
      errorCode: nodeId === null ? Errors.COORDINATOR_NOT_AVAILABLE : Errors.NONE,
      nodeId,
    };
  }
}
