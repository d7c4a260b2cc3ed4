import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { confirm } from "../../src/confirm/confirm.js";
import { modelRunOfSeedFile } from "../../src/confirm/plan/model-run.js";
import type { RealRun } from "../../src/confirm/run/real-run.js";

// Flakiness is a defect: only an inconclusive attempt (a planned fault that did not fire) is played
// again, at most twice, and the result says how many were. Recorded real runs stand in for clusters.

const recorded = (): RealRun =>
  JSON.parse(readFileSync(new URL("./fixtures/real-runs/kip-1228-gap.mixed.json", import.meta.url), "utf8")).run;

function unfired(): RealRun {
  const run = recorded();
  for (const f of run.faults) f.firings = [];
  return run;
}

const model = modelRunOfSeedFile("test/real-cluster/fixtures/kip-1228-gap-4.1-coordinator.tape.json");
const outDir = () => mkdtempSync(join(tmpdir(), "eosfuzz-confirm-retries-"));

describe("confirm's retries", () => {
  it("plays an inconclusive attempt again and stops at the first conclusive one", async () => {
    const runs = [unfired(), recorded(), recorded()];
    let played = 0;
    const result = await confirm(model, { outDir: outDir(), runner: async () => runs[played++] as RealRun });
    expect(played).toBe(2);
    expect(result.attempts.map((a) => a.verdict.verdict)).toEqual(["inconclusive", "confirmed"]);
    expect(result.final.verdict.verdict).toBe("confirmed");
  });

  it("gives up inconclusive after two retries", async () => {
    let played = 0;
    const result = await confirm(model, {
      outDir: outDir(),
      runner: async () => {
        played++;
        return unfired();
      },
    });
    expect(played).toBe(3);
    expect(result.final.verdict.verdict).toBe("inconclusive");
  });

  it("never retries a conclusive attempt, not even one that disagrees with the model", async () => {
    let played = 0;
    const clean = JSON.parse(
      readFileSync(new URL("./fixtures/real-runs/kip-1228-gap.all-4.2.1.json", import.meta.url), "utf8"),
    ).run as RealRun;
    const result = await confirm(model, {
      outDir: outDir(),
      runner: async () => {
        played++;
        return clean;
      },
    });
    expect(played).toBe(1);
    expect(result.final.verdict.verdict).toBe("not-reproduced");
    expect(result.final.verdict.divergence?.what).toBe("the proxy releases the copy hold-1 holds");
  });
});
