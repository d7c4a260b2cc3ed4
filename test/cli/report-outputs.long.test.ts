import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { deterministicPart, type RunReport } from "../../src/report/run-report.js";
import { firstGapFailure } from "../report/report-fixtures.js";
import { CLI, eosfuzz, ROOT } from "./cli-helpers.js";

const ESC = String.fromCharCode(27);
const { trace } = firstGapFailure();
const failingSeed = trace.seed;
/** The seed before the first kip-1228-gap failure, and that failure: a short run that finds it (the seed after fails too). */
const aroundFailure = [
  "--scenario",
  "kip-1228-gap",
  "--seed-start",
  String(Math.max(0, failingSeed - 1)),
  "--seeds",
  "2",
];

describe("run --out", () => {
  const dir = mkdtempSync(join(tmpdir(), "eosfuzz-report-"));
  const r = eosfuzz(["run", ...aroundFailure, "--out", dir, "--json"]);

  it("writes run.json (the --json object), index.html, junit.xml, a ShiViz log per reported failure and the shrunk tape", () => {
    expect(r.code).toBe(0);
    const tape = readdirSync(dir).find((f) => /^kip-1228-gap\.tape-[0-9a-f]{16}\.json$/.test(f));
    expect(readdirSync(dir).sort()).toEqual(
      ["index.html", "junit.xml", "results.jsonl", "run.json", `trace-${failingSeed}.shiviz.log`, tape].sort(),
    );
    const written = JSON.parse(readFileSync(join(dir, "run.json"), "utf8")) as RunReport;
    expect(deterministicPart(written)).toEqual(deterministicPart(JSON.parse(r.stdout)));
    expect(XMLValidator.validate(readFileSync(join(dir, "junit.xml"), "utf8"))).toBe(true);
    expect(readFileSync(join(dir, `trace-${failingSeed}.shiviz.log`), "utf8").split("\n")[0]).toBe(
      String.raw`(?<event>.*)\n(?<host>\S*) (?<clock>{.*})`,
    );
  });

  it("index.html is self-contained: inline style, script and SVG, nothing fetched", () => {
    const html = readFileSync(join(dir, "index.html"), "utf8");
    expect(html).toContain('<svg xmlns="http://www.w3.org/2000/svg" class="spacetime"');
    expect(html).toContain("em-stale");
    expect(html).toContain("Seeds to first violation");
    expect(html).not.toMatch(/<(script|img|link|iframe)[^>]+(src|href)=/i);
    expect(html.replace(/xmlns="http:\/\/www\.w3\.org\/2000\/svg"/g, "")).not.toMatch(/https?:\/\//);
  });

  it("bare --out writes to reports/<scenario>-<run id>/ and says where", () => {
    const cwd = mkdtempSync(join(tmpdir(), "eosfuzz-cwd-"));
    const bare = eosfuzz(["run", "--scenario", "kip-1228", "--seeds", "1", "--out"], { cwd });
    expect(bare.code).toBe(0);
    const [sub] = readdirSync(join(cwd, "reports"));
    expect(sub).toMatch(/^kip-1228-\d{8}T\d{6}Z$/);
    expect(existsSync(join(cwd, "reports", sub as string, "index.html"))).toBe(true);
    expect(bare.stdout).toContain(`report: ${join("reports", sub as string, "index.html")}`);
  });
});

describe("eosfuzz report", () => {
  const dir = mkdtempSync(join(tmpdir(), "eosfuzz-rerender-"));
  const run = eosfuzz(["run", ...aroundFailure, "--json"]);
  writeFileSync(join(dir, "run.json"), run.stdout);

  it("renders a saved run again: --html writes the page with the failure's diagram", () => {
    const r = eosfuzz(["report", join(dir, "run.json"), "--html", join(dir, "page.html")]);
    expect(r.code).toBe(0);
    const html = readFileSync(join(dir, "page.html"), "utf8");
    expect(html).toContain(`id="diagram-${failingSeed}"`);
    expect(html).toContain("em-stale");
    expect(r.stdout).toContain("stale-marker");
  });

  it("--out writes the whole layout, like run --out", () => {
    const r = eosfuzz(["report", join(dir, "run.json"), "--out", join(dir, "again")]);
    expect(r.code).toBe(0);
    expect(readdirSync(join(dir, "again")).sort()).toEqual(
      ["index.html", "junit.xml", "run.json", `trace-${failingSeed}.shiviz.log`].sort(),
    );
  });

  it("a corrupt report is one line naming the file and the field, exit 2", () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ ...JSON.parse(run.stdout), seedsRun: -1 }));
    const r = eosfuzz(["report", bad, "--html", join(dir, "x.html")]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/bad\.json seedsRun: .*found -1/);
    expect(existsSync(join(dir, "x.html"))).toBe(false);
  });
});

describe("terminal output", () => {
  it("NO_COLOR=1 output has no escape codes; FORCE_COLOR=1 has them", () => {
    const plain = eosfuzz(["run", ...aroundFailure], { env: { NO_COLOR: "1", FORCE_COLOR: "" } });
    expect(plain.stdout).toMatch(/stale-marker/);
    expect(plain.stdout + plain.stderr).not.toContain(ESC);
    const coloured = eosfuzz(["run", ...aroundFailure, "--no-shrink"], { env: { FORCE_COLOR: "1" } });
    expect(coloured.stdout).toContain(`${ESC}[`);
    const json = eosfuzz(["run", ...aroundFailure, "--no-shrink", "--json"], { env: { FORCE_COLOR: "1" } });
    expect(json.stdout).not.toContain(ESC);
  });

  it("run --json | head -c 100 exits without a stack trace", () => {
    const r = spawnSync(
      "bash",
      ["-o", "pipefail", "-c", `"${process.execPath}" "${CLI}" run --scenario kip-1228 --seeds 5 --json | head -c 100`],
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(r.stdout).toHaveLength(100);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    // A reader that is gone before the first byte: the write fails with EPIPE, which must stay quiet.
    const gone = spawnSync(
      "bash",
      ["-o", "pipefail", "-c", `"${process.execPath}" "${CLI}" run --scenario kip-1228 --seeds 5 | true`],
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(gone.stderr).toBe("");
    expect(gone.status).toBe(0);
  });

  it("prints a heartbeat line on a non-terminal stderr", () => {
    const r = eosfuzz(["run", "--scenario", "kip-1228", "--seeds", "4"], {
      env: { EOSFUZZ_HEARTBEAT_SECONDS: "0.001" },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^eosfuzz kip-1228: 1\/4 seeds \(25%\), [\d.]+ seeds\/s, 0 violations, ETA \S+$/m);
    const quiet = eosfuzz(["run", "--scenario", "kip-1228", "--seeds", "4", "--no-progress"], {
      env: { EOSFUZZ_HEARTBEAT_SECONDS: "0.001" },
    });
    expect(quiet.stderr).toBe("");
  });

  it("under GitHub Actions: ::error annotations with the replay command and a step summary", () => {
    const tmp = mkdtempSync(join(tmpdir(), "eosfuzz-gha-"));
    const scenario = join(tmp, "gap-clean.yaml");
    writeFileSync(
      scenario,
      readFileSync(join(ROOT, "scenarios/kip-1228-gap.yaml"), "utf8")
        .replace(/^expect:[\s\S]*$/m, "expect:\n  clean: true\n")
        .replace(/^name: .*$/m, "name: gap-clean"),
    );
    const summary = join(tmp, "summary.md");
    const r = eosfuzz(["run", "--scenario", scenario, "--seed-start", String(failingSeed), "--seeds", "1"], {
      env: { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary },
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      new RegExp(
        `^::error title=eosfuzz gap-clean%3A stale-marker \\(seed ${failingSeed}\\)::.*%0Areplay: eosfuzz run --scenario ${scenario} --seed-start ${failingSeed} --seeds 1$`,
        "m",
      ),
    );
    expect(readFileSync(summary, "utf8")).toContain("expectation NOT met");
  });
});
