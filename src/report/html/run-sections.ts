import type { RunReport } from "../run-report.js";
import { cleanClaim, percent } from "../search-terminal.js";
import { shrinkFurtherCommand, storyHeading } from "../shrink-render.js";
import { escapeXml } from "./escape.js";
import { renderExtraField } from "./extra-fields.js";

/**
 * The sections of a run page for the parts of run.json beyond the verdict and the violations: the
 * search, what the sweep showed, coverage, the shrunk first failure, script steps, determinism and
 * seed files, each with a heading and labels a reader understands (not the field names of run.json).
 */

const n = (x: number) => x.toLocaleString("en-US");

function table(head: string[], rows: string[][], className = ""): string {
  const th = head.map((h) => `<th>${escapeXml(h)}</th>`).join("");
  const trs = rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("");
  return `<table${className ? ` class="${className}"` : ""}><tr>${th}</tr>${trs}</table>`;
}

function pairs(rows: [string, string][]): string {
  return `<table class="pairs">${rows.map(([k, v]) => `<tr><th>${escapeXml(k)}</th><td>${v}</td></tr>`).join("")}</table>`;
}

const num = (x: number) => `<span class="mono">${n(x)}</span>`;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** A section whose value has not the shape this page knows (a report of another version): shown generically. */
function generic(title: string, value: unknown): string {
  return `<h2>${escapeXml(title)}</h2>${renderExtraField(value)}`;
}

/** The strategy and how the campaign ended. */
export function searchSection(r: RunReport): string {
  if (!isObject(r.strategy) || typeof r.strategy.summary !== "string") return generic("Search", r.strategy);
  const lines = [`<p>${escapeXml(r.strategy.summary)}</p>`];
  if (r.shard)
    lines.push(
      `<p>Shard ${r.shard.index}/${r.shard.count} of seeds ${r.seedStart}..${r.seedStart + r.seedsPlanned - 1}: this report covers seeds ${r.shard.firstSeed ?? "?"}..${r.shard.lastSeed ?? "?"} (eosfuzz merge turns the shards' run.json into the report of the whole campaign).</p>`,
    );
  if (r.stoppedBy && r.stoppedBy !== "done")
    lines.push(`<p>Stopped by ${escapeXml(r.stoppedBy)} after ${n(r.seedsRun)} of ${n(r.seedsPlanned)} runs.</p>`);
  const s = r.strategy;
  if (s.pct)
    lines.push(
      pairs([
        ["bug depth d", num(s.pct.depth)],
        ["messages it schedules", escapeXml(s.pct.scope)],
        ["messages per run", num(s.pct.messagesPerRun)],
        ["delivery chains", num(s.pct.chains)],
        ["chance per run of a depth-d bug, at least", escapeXml(String(s.pct.perRunBound))],
        ["chance of missing it over the campaign, at most", escapeXml(String(s.pct.missProbabilityBound))],
      ]),
    );
  if (s.coverage)
    lines.push(
      pairs([
        ["tapes kept (corpus)", num(s.coverage.corpus)],
        ["generations", num(s.coverage.generations)],
        ["fresh runs", num(s.coverage.freshRuns)],
        ["runs re-rolled from a kept tape", num(s.coverage.mutatedRuns)],
        ...(s.coverage.aimedRuns !== undefined
          ? [["of them aimed at a late marker copy", num(s.coverage.aimedRuns)] as [string, string]]
          : []),
      ]),
    );
  if (s.exhaustive)
    lines.push(
      pairs([
        ["every schedule searched", s.exhaustive.exhaustive ? "yes" : "no"],
        ["deviations from the simplest schedule, at most", num(s.exhaustive.depth)],
        ["depth completed", num(s.exhaustive.depthCompleted)],
        ["schedules", num(s.exhaustive.schedules)],
        ["distinct states", num(s.exhaustive.states)],
        ["branches pruned", num(s.exhaustive.prunedBranches)],
        ...(s.exhaustive.counterexampleDeviations !== null
          ? [["deviations of the counterexample", num(s.exhaustive.counterexampleDeviations)] as [string, string]]
          : []),
      ]),
    );
  return `<h2>Search</h2>${lines.join("")}`;
}

/** Per signature, how often and how soon; and what a clean result proves. */
export function statisticsSection(r: RunReport): string {
  const st = r.statistics;
  if (!isObject(st) || !Array.isArray(st.signatures) || !isObject(st.clean))
    return generic("What the sweep showed", st);
  const rows = st.signatures.map((s) => [
    escapeXml(s.signature),
    num(s.seeds),
    escapeXml(percent(s.fractionOfSeeds)),
    num(s.firstSeed),
    num(s.seedsToFirstHit),
    s.wallMsToFirstHit === null ? "" : escapeXml(`${(s.wallMsToFirstHit / 1000).toFixed(1)} s`),
  ]);
  const signatures =
    rows.length > 0
      ? table(
          [
            "violation and broker release",
            "runs",
            "share of runs",
            "first run",
            "runs to the first",
            "time to the first",
          ],
          rows,
          "stats",
        )
      : "";
  const c = st.clean;
  const claim = st.signatures.length === 0 ? "No violation" : "No other violation";
  const needed = c.seedsNeeded.map((x) => `${percent(x.perSeedProbability)} needs ${n(x.seeds)}`).join(", ");
  const enumerated = cleanClaim(r);
  const proves = enumerated
    ? `${escapeXml(enumerated)}.`
    : `any bug hit by at least ${escapeXml(percent(c.largestMissedPerSeedProbability))} of runs would have shown (95% confidence). Runs a 95% detection needs, by how often a bug shows: ${escapeXml(needed)}.`;
  return `<h2>What the sweep showed</h2>${signatures}<p>${claim} in ${n(c.seedsRun)} runs: ${proves}</p>`;
}

/** The abstract protocol states reached, those never reached, and the scenario's goals. */
export function coverageSection(r: RunReport): string {
  const cov = r.coverage;
  if (!cov) return `<h2>Protocol-state coverage</h2><p class="muted">This run recorded no protocol-state coverage.</p>`;
  if (!Array.isArray(cov.reached) || !Array.isArray(cov.neverReached) || !Array.isArray(cov.goals))
    return generic("Protocol-state coverage", cov);
  const goals =
    cov.goals.length > 0
      ? table(
          ["goal", "pattern", "runs (at least)", "first run", "reached"],
          cov.goals.map((g) => [
            escapeXml(g.name),
            `<code>${escapeXml(g.pattern)}</code>`,
            `${num(g.seeds)} (${num(g.minSeeds)})`,
            g.firstSeed === null ? "" : num(g.firstSeed),
            g.reached ? `<span class="pill ok">reached</span>` : `<span class="pill bad">not reached</span>`,
          ]),
          "goals",
        )
      : "";
  const reached = table(
    ["state", "runs", "first run"],
    cov.reached.slice(0, 500).map((p) => [`<code>${escapeXml(p.point)}</code>`, num(p.seeds), num(p.firstSeed)]),
    "coverage",
  );
  const never =
    cov.neverReached.length > 0
      ? `<details><summary>${n(cov.neverReached.length)} possible states never reached</summary><ul class="states">${cov.neverReached
          .slice(0, 500)
          .map((p) => `<li><code>${escapeXml(p)}</code></li>`)
          .join("")}</ul></details>`
      : "";
  return `<h2>Protocol-state coverage</h2><p>${n(cov.reached.length)} abstract protocol states reached, ${n(cov.neverReached.length)} of ${n(cov.possible)} possible never reached.</p>${goals}<details open><summary>States reached</summary>${reached}</details>${never}`;
}

/** The first failure shrunk to its minimal schedule: sizes before and after, and its story. */
export function shrunkSection(r: RunReport): string {
  const s = r.shrunk;
  if (!s) return "";
  if (!Array.isArray(s.story) || !isObject(s.before) || !isObject(s.after))
    return generic("The first failure, shrunk", s);
  const sizes: [string, keyof NonNullable<RunReport["shrunk"]>["before"]][] = [
    ["simulation events", "events"],
    ["faults", "faults"],
    ["messages", "messages"],
    ["transactions", "transactions"],
    ["producers", "producers"],
    ["choices on the tape", "tapeLength"],
    ["choices that are not the simplest", "nonZeroChoices"],
  ];
  const reduction = s.reduction
    ? `<p>First made smaller as a scenario: producers ${s.reduction.producers[0]} to ${s.reduction.producers[1]}, transactions ${s.reduction.transactions[0]} to ${s.reduction.transactions[1]}, consumers ${s.reduction.consumers[0]} to ${s.reduction.consumers[1]} (the failure found again at seed ${s.reduction.seed}).</p>`
    : "";
  const story = `<ol class="story">${s.story.map((line) => `<li>${escapeXml(line.replace(/^\s*\d+\.\s*/, ""))}</li>`).join("")}</ol>`;
  const further =
    s.savedTo && s.stoppedBy === "budget"
      ? ` Shrink further: <code>${escapeXml(shrinkFurtherCommand(s.savedTo, Math.max(1, s.timeMs)))}</code>.`
      : "";
  const saved = s.savedTo ? `<p>Saved as <code>${escapeXml(s.savedTo)}</code> (eosfuzz replay it).${further}</p>` : "";
  return `<h2>The first failure, shrunk</h2><p>${escapeXml(s.kind)}${s.broker ? ` at ${escapeXml(s.broker)}` : ""}${s.seed !== null ? `, seed ${s.seed}` : ""}: ${n(s.runs)} candidate runs, ${(s.timeMs / 1000).toFixed(1)} s, ${s.stoppedBy === "fixpoint" ? "minimal: no smaller candidate fails" : "the best found within the time budget"}${s.deterministic ? "" : "; <b>the shrunk run is not deterministic</b>"}.</p>${table(
    ["", "before", "after"],
    sizes.map(([label, key]) => [escapeXml(label), num(s.before[key]), num(s.after[key])]),
    "sizes",
  )}${reduction}<h3>${escapeXml(capitalized(storyHeading(s)))}</h3>${story}${saved}`;
}

export function scriptStepsSection(r: RunReport): string {
  if (!r.scriptSteps) return "";
  if (!Array.isArray(r.scriptSteps)) return generic("Script steps", r.scriptSteps);
  return `<h2>Script steps</h2>${table(
    ["step", "action", "at", "outcome", ""],
    r.scriptSteps.map((s) => [
      num(s.index),
      escapeXml(`${s.action}${s.note ? ` (${s.note})` : ""}`),
      escapeXml(`${s.startMs}..${s.endMs} ms`),
      escapeXml([s.outcome, ...s.problems].join("; ")),
      s.ok ? `<span class="pill ok">as expected</span>` : `<span class="pill bad">not as expected</span>`,
    ]),
    "steps",
  )}`;
}

export function determinismSection(r: RunReport): string {
  const d = r.determinism;
  if (!d) return "";
  if (!Array.isArray(d.mismatches)) return generic("Determinism", d);
  const mismatches = d.mismatches.map((m) => `<h3>seed ${m.seed}</h3><pre>${escapeXml(m.lines.join("\n"))}</pre>`);
  return `<h2>Determinism</h2><p>${n(d.checked)} runs made a second time: ${d.mismatches.length === 0 ? "every trace hash the same." : `${d.mismatches.length} gave another trace.`}</p>${mismatches.join("")}`;
}

export function seedFilesSection(r: RunReport): string {
  if (!r.seedFiles) return "";
  if (!Array.isArray(r.seedFiles)) return generic("Seed files", r.seedFiles);
  if (r.seedFiles.length === 0) return `<h2>Seed files</h2><p class="muted">None written.</p>`;
  return `<h2>Seed files</h2><p>eosfuzz replay any of them:</p><ul>${r.seedFiles.map((f) => `<li><code>${escapeXml(f)}</code></li>`).join("")}</ul>`;
}

/** A field run.json gained that this page does not know: shown generically, under a heading in words. */
export function otherFieldSection(name: string, value: unknown): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .toLowerCase();
  return `<h2>${escapeXml(words.charAt(0).toUpperCase() + words.slice(1))}</h2>${renderExtraField(value)}`;
}

/** Fields of run.json the sections above (and the top of the page) show. */
export const SECTION_FIELDS: readonly string[] = [
  "strategy",
  "shard",
  "seedsPlanned",
  "completedSeeds",
  "stoppedBy",
  "statistics",
  "coverage",
  "shrunk",
  "scriptSteps",
  "determinism",
  "seedFiles",
  "modelFailures",
];

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
