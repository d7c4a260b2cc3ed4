#!/usr/bin/env node
// Renders the scorecard table of docs/bug-history.md from `eosfuzz bugs run --json` (stdin or a
// file), with the catalogue (`eosfuzz bugs --json`) for the bugs the run did not cover, and
// replaces the table between the markers <!-- scorecard:start --> and <!-- scorecard:end -->.
//
//   node dist/cli/main.js bugs run --budget-seeds 5000 --json > /tmp/bugs.json
//   node scripts/bug-scorecard.mjs /tmp/bugs.json docs/bug-history.md
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const [runFile, docFile] = process.argv.slice(2);
if (!runFile || !docFile) {
  console.error("usage: node scripts/bug-scorecard.mjs RUN.json docs/bug-history.md");
  process.exit(2);
}
const outcomes = new Map(JSON.parse(readFileSync(runFile, "utf8")).map((o) => [o.id, o]));
const catalogue = JSON.parse(execFileSync("node", ["dist/cli/main.js", "bugs", "--json"], { encoding: "utf8" }));

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const cell = (text) => String(text ?? "").replaceAll("|", "\\|");

function resultOf(bug, o) {
  if (!bug.modelled || bug.scenario === null) return bug.overrides ? "flag, no scenario" : "not modelled";
  if (!o) return "not run";
  if (o.found) return "**found**";
  if (o.firstSeed !== null && o.symptomSeedsOff > 0) return "not found (bug off not clean)";
  return "not found";
}

function row(bug) {
  const o = bug.modelled && bug.scenario !== null ? outcomes.get(bug.id) : undefined;
  const kinds = `${bug.symptom} (${bug.kinds.join(", ")})`;
  const first = o && o.firstSeed !== null ? `${o.firstSeed} (${o.seedsOn}, ${seconds(o.timeToFirstMs)})` : o ? `none in ${o.seedsOn}` : "";
  const off = o ? `${o.symptomSeedsOff}/${o.seedsOff}` : "";
  const story = o?.found && o.shrunkSteps !== null ? `${o.shrunkSteps} step${o.shrunkSteps === 1 ? "" : "s"}` : "";
  const finding = o?.found ? cell(o.explanation) : "";
  return `| ${bug.id} | ${cell(bug.kafka)} | ${cell(kinds)} | ${bug.modelled ? (bug.scenario ?? "") : ""} | ${resultOf(bug, o)} | ${first} | ${off} | ${story} | ${finding} |`;
}

const header = [
  "| bug | Kafka | symptom (kinds) | scenario | result | first seed (runs, time) | bug off | shrunk story | first finding (shrunk) |",
  "|---|---|---|---|---|---|---|---|---|",
];
const found = catalogue.filter((b) => outcomes.get(b.id)?.found).length;
const table = [...header, ...catalogue.map(row)].join("\n");
const doc = readFileSync(docFile, "utf8");
const start = doc.indexOf("<!-- scorecard:start -->");
const end = doc.indexOf("<!-- scorecard:end -->");
if (start < 0 || end < start) {
  console.error(`${docFile}: no <!-- scorecard:start --> ... <!-- scorecard:end --> markers`);
  process.exit(2);
}
writeFileSync(docFile, `${doc.slice(0, start)}<!-- scorecard:start -->\n${table}\n${doc.slice(end)}`);
console.log(`${found} of ${catalogue.length} found; table written to ${docFile}`);
