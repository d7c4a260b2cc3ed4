import { describe, expect, it } from "vitest";
import {
  caseLabel,
  kafkaLeaderDiscovery,
  leaderDiscoveryCases,
  modelLeaderDiscovery,
} from "../../src/conform/client/leader-discovery.js";
import { KafkaHarness } from "../../src/harness/harness-process.js";
import { type HarnessRelease, harnessRelease } from "../../src/harness/kafka-releases.js";

/**
 * KIP-951's Metadata.updatePartitionLeadership against the model's ClientMetadata, at the oldest
 * and the newest release the model covers (its code is the same in between). Without the JVM
 * harness (npm run harness:setup) KafkaHarness.start fails with the line saying so.
 */
const RELEASES = ["3.9.1", "4.4.0"] as const;

describe("KIP-951: Kafka's Metadata.updatePartitionLeadership and the model's agree", () => {
  for (const name of RELEASES)
    it(`at ${name}`, async () => {
      const harness = await KafkaHarness.start(harnessRelease(name) as HarnessRelease);
      try {
        const differences: string[] = [];
        let taken = 0;
        for (const c of leaderDiscoveryCases()) {
          const kafka = await kafkaLeaderDiscovery(harness, c);
          const model = modelLeaderDiscovery(c);
          if (kafka.updated) taken++;
          if (JSON.stringify(kafka) !== JSON.stringify(model))
            differences.push(`${caseLabel(c)}: Kafka ${JSON.stringify(kafka)}, model ${JSON.stringify(model)}`);
        }
        expect(differences).toEqual([]);
        // Both ways occur: a newer complete leader of a cached partition is taken, the rest are not.
        expect(taken).toBeGreaterThan(0);
        expect(taken).toBeLessThan(leaderDiscoveryCases().length);
      } finally {
        await harness.close();
      }
    }, 120_000);
});
