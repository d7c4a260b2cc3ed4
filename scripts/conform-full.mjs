#!/usr/bin/env node
// npm run conform:full: the whole judgement of the model by Kafka's classes, as the closing numbers of
// docs/conformance.md state it: every surface at every release (leader 100,000 generated sequences,
// txnMetadata and txnCoordinator 10,000, the client's whole table), and trace validation of every
// built-in scenario over 200 seeds. Long (about two hours on an idle 2-core machine): never part of
// npm test. Each step is one `eosfuzz conform ... --json` run; their results and wall times go to
// reports/conform-full/ (one JSON file per step, written as it ends) and a summary line each on stdout.
// Options: --leader N, --coordinator N, --seeds N (per scenario), --only leader|coordinator|client|traces,
// --releases A,B (the leader's releases, in this order; default every release of jvm/releases.json),
// --scenarios A,B (the traces' scenarios; default every built-in one).
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..");
const out = join(root, "reports", "conform-full");
mkdirSync(out, { recursive: true });

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
const leader = Number(option("leader", "100000"));
const coordinator = Number(option("coordinator", "10000"));
const seeds = Number(option("seeds", "200"));
const only = option("only", null);

function conform(label, args) {
  const started = Date.now();
  const r = spawnSync("node", [join(root, "dist", "cli", "main.js"), "conform", ...args, "--json"], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  const wallMs = Date.now() - started;
  let result = null;
  try {
    result = JSON.parse(r.stdout);
  } catch {
    result = { unparsed: r.stdout.slice(0, 2000) };
  }
  writeFileSync(join(out, `${label}.json`), `${JSON.stringify({ label, args, exit: r.status, wallMs, result }, null, 1)}\n`);
  const summary = (result?.releases ?? [])
    .map((x) =>
      x.surfaces
        ? x.surfaces.map((s) => `${x.release} ${s.surface} ${s.operations} ops ${s.divergences} divergent`).join("; ")
        : `${x.release} ${x.operations} ops ${x.divergences} divergent`,
    )
    .join("; ");
  process.stdout.write(`${label}: exit ${r.status}, ${(wallMs / 1000).toFixed(0)} s; ${summary}${r.stderr ? ` | ${r.stderr.trim().split("\n").at(-1)}` : ""}\n`);
}

// One step per release, so a step's result is on disk when it ends (the leader is the long one).
const RELEASES =
  option("releases", null)?.split(",") ??
  JSON.parse(readFileSync(join(root, "jvm", "releases.json"), "utf8")).releases.map((r) => r.release);
if (!only || only === "leader")
  for (const release of RELEASES)
    conform(`leader-${release}`, ["--surface", "leader", "--release", release, "--sequences", String(leader)]);
if (!only || only === "coordinator")
  conform("coordinator", ["--surface", "txnMetadata", "txnCoordinator", "--sequences", String(coordinator)]);
if (!only || only === "client") conform("client", ["--surface", "client"]);
if (!only || only === "traces") {
  const scenarios =
    option("scenarios", null)?.split(",") ??
    readdirSync(join(root, "scenarios"))
      .filter((f) => f.endsWith(".yaml"))
      .map((f) => f.slice(0, -5))
      .sort();
  for (const s of scenarios) conform(`trace-${s}`, ["--scenario", s, "--seeds", String(seeds)]);
}
