import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { builtinScenarioNames } from "../../src/scenario/loader.js";
import { eosfuzz, ROOT } from "./cli-helpers.js";

// What a project's CI job runs: `eosfuzz regress` over the whole repository (every built-in scenario
// against its expectation, every saved seed replayed). Minutes on 2 cores, so in npm run test:long,
// which CI runs after npm test; test/cli/regress.test.ts keeps the command's behaviour on small inputs.
describe("eosfuzz regress", () => {
  it("exits 0 on the repository as committed: every scenario meets its expectation, every saved seed reproduces", () => {
    const junit = join(mkdtempSync(join(tmpdir(), "eosfuzz-junit-")), "regress.xml");
    const r = eosfuzz(["regress", "--junit", junit], { cwd: ROOT, timeoutMs: 540_000 });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const scenarios = builtinScenarioNames();
    const seeds = readdirSync(join(ROOT, "seeds")).filter((f) => f.endsWith(".json"));
    expect(seeds.length).toBeGreaterThanOrEqual(6);
    for (const name of scenarios) expect(r.stdout).toMatch(new RegExp(`PASS  scenario ${name.replace(/\./g, "\\.")} `));
    for (const file of seeds)
      expect(r.stdout).toMatch(
        new RegExp(`PASS  seed {5}${file.replace(/\./g, "\\.")} .*reproduced, trace [0-9a-f]{16}`),
      );
    expect(r.stdout).toMatch(new RegExp(`ALL HOLD  ${scenarios.length + seeds.length} passed, 0 failed`));
    // The shipped seeds match the scenarios, shrunk tapes of reduced scenarios included (they name
    // the scenario they were reduced from).
    expect(r.stdout).not.toMatch(/changed since this seed was saved/);
    const xml = readFileSync(junit, "utf8");
    expect(xml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="eosfuzz regress"/);
    expect(xml.match(/<testcase /g)).toHaveLength(scenarios.length + seeds.length);
    expect(xml).not.toMatch(/<failure|<error/);
    expect(XMLValidator.validate(xml)).toBe(true);
  });
});
