import type { TransactionVersion } from "../common/types.js";
import type { FeaturesImage } from "../metadata/metadata-image.js";

/**
 * A producer's ApiVersions (org.apache.kafka.clients.ApiVersions), reduced to finalized features:
 * NetworkClient asks ApiVersions first on every new connection, and the answer's finalized features
 * are kept only if their epoch is the highest seen, so a broker whose metadata is behind cannot
 * take a client back. The TransactionManager reads it at transaction boundaries.
 */
export class ApiVersions {
  /** ApiVersions.maxFinalizedFeaturesEpoch: -1 until a broker answered. */
  maxFinalizedFeaturesEpoch = -1;
  /** transaction.version of the answer with the highest epoch (null: none yet). */
  finalizedTransactionVersion: TransactionVersion | null = null;

  /** A new connection's ApiVersions exchange, answered from the broker's image (none if it is down). */
  learn(features: FeaturesImage | undefined): void {
    if (features !== undefined) this.update(features);
  }

  /** An ApiVersions answer of one broker (ApiVersions.update). */
  update(features: FeaturesImage): void {
    if (features.epoch <= this.maxFinalizedFeaturesEpoch) return;
    this.maxFinalizedFeaturesEpoch = features.epoch;
    this.finalizedTransactionVersion = features.transactionVersion;
  }
}
