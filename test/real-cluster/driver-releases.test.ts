import { describe, expect, it } from "vitest";
import { DriverProcess } from "../../src/confirm/driver/driver-process.js";
import { harnessReleases } from "../../src/harness/kafka-releases.js";

// The driver, compiled once against kafka-clients 3.9.1, runs on every release's clients (4.4 moved
// AppInfoParser; the driver reads the jar's version file instead). No cluster: one JVM each.

describe("the driver on every release's classpath", () => {
  for (const { release } of harnessReleases())
    it(`runs kafka-clients ${release}`, async () => {
      const driver = await DriverProcess.start(release);
      try {
        expect(driver.kafkaVersion).toBe(release);
      } finally {
        await driver.close();
      }
    });
});
