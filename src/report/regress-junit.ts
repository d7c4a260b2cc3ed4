import type { RegressResult, RegressRow } from "../fuzz/catalogue/regress.js";

/** XML 1.0 text: escape markup, drop characters XML forbids (such as ANSI escapes). */
function xml(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing the control characters XML 1.0 forbids
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "")
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&apos;")
  );
}

function testcase(r: RegressRow, suite: string): string {
  const open = `    <testcase classname="eosfuzz.${suite}" name="${xml(r.name)}" file="${xml(r.file)}" time="${(r.wallMs / 1000).toFixed(3)}"`;
  if (r.result === "pass") return `${open}/>`;
  const tag = r.result === "fail" ? "failure" : "error";
  return `${open}>\n      <${tag} message="${xml(r.detail)}" type="${r.result}">${xml(`${r.expectation}\n${r.detail}`)}</${tag}>\n    </testcase>`;
}

function suite(name: string, rows: RegressRow[]): string {
  const failures = rows.filter((r) => r.result === "fail").length;
  const errors = rows.filter((r) => r.result === "error").length;
  const time = rows.reduce((t, r) => t + r.wallMs, 0) / 1000;
  return [
    `  <testsuite name="eosfuzz ${name}" tests="${rows.length}" failures="${failures}" errors="${errors}" time="${time.toFixed(3)}">`,
    ...rows.map((r) => testcase(r, name)),
    "  </testsuite>",
  ].join("\n");
}

/** JUnit XML for CI systems: one suite for scenarios, one for saved seeds. */
export function renderRegressJunit(result: RegressResult): string {
  const scenarios = result.rows.filter((r) => r.kind === "scenario");
  const seeds = result.rows.filter((r) => r.kind === "seed");
  // Matrix jobs' reports are read side by side: each names its shard.
  const title = result.shard
    ? `eosfuzz regress (shard ${result.shard.index}/${result.shard.count})`
    : "eosfuzz regress";
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${title}" tests="${result.rows.length}" failures="${result.failed}" errors="${result.errors}">\n${suite("scenarios", scenarios)}\n${suite("seeds", seeds)}\n</testsuites>\n`;
}
