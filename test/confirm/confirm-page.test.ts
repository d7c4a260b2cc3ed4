import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { confirm } from "../../src/confirm/confirm.js";
import { confirmPage } from "../../src/confirm/confirm-page.js";
import { modelRunOfSeedFile } from "../../src/confirm/plan/model-run.js";
import { describeStep } from "../../src/confirm/plan/plan.js";
import { escapeXml } from "../../src/report/html/escape.js";
import type { RealRun } from "../../src/confirm/run/real-run.js";

// The confirm page (confirm.html): the real run beside the simulated one, step by step. Recorded
// real runs stand in for clusters.

const fixture = (name: string): RealRun =>
  JSON.parse(readFileSync(new URL(`./fixtures/real-runs/${name}`, import.meta.url), "utf8")).run;
const model = modelRunOfSeedFile("test/real-cluster/fixtures/kip-1228-gap-4.1-coordinator.tape.json");
const outDir = () => mkdtempSync(join(tmpdir(), "eosfuzz-confirm-page-"));

/** The page's table rows, each as [class, cells]. */
function rows(html: string): { cls: string; cells: string[] }[] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? "";
  return [...body.matchAll(/<tr class="([^"]*)">([\s\S]*?)<\/tr>/g)].map((m) => ({
    cls: m[1] as string,
    cells: [...(m[2] as string).matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1] as string),
  }));
}

describe("the confirm page", () => {
  it("a confirmed run: every step with the model's outcome beside real Kafka's, both sides' violations", async () => {
    const result = await confirm(model, { outDir: outDir(), runner: async () => fixture("kip-1228-gap.mixed.json") });
    const html = confirmPage(result, "eosfuzz confirm kip-1228-gap");
    expect(html).toContain('<span class="verdict confirmed">CONFIRMED</span>');
    const table = rows(html);
    expect(table).toHaveLength(result.final.run.steps.length);
    for (const [i, s] of result.final.run.steps.entries())
      expect(table[i]?.cells[2]).toBe(escapeXml(describeStep(s.step)));
    expect(table.some((r) => r.cls.includes("first-divergence"))).toBe(false);
    // The stale marker is on both sides: the model's and the one real Kafka wrote.
    const sides = html.split("Real Kafka's violations");
    expect(sides[0]).toContain("<b>stale-marker</b>");
    expect(sides[1]).toContain("<b>stale-marker</b>");
    expect(html).toContain("DumpLogSegments of orders-0");
  });

  it("a run real Kafka did not reproduce: the first step where it went another way is marked", async () => {
    const result = await confirm(model, {
      outDir: outDir(),
      runner: async () => fixture("kip-1228-gap.all-4.2.1.json"),
    });
    expect(result.final.verdict.verdict).toBe("not-reproduced");
    const html = confirmPage(result, "eosfuzz confirm kip-1228-gap");
    const marked = rows(html).filter((r) => r.cls.includes("first-divergence"));
    expect(marked).toHaveLength(1);
    expect(Number(marked[0]?.cells[0])).toBe(result.final.verdict.divergence?.step);
    expect(html).toContain('<span class="verdict not-reproduced">NOT-REPRODUCED</span>');
  });
});
