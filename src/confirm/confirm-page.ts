import { escapeXml } from "../report/html/escape.js";
import type { ConfirmResult } from "./confirm.js";
import type { ModelOutcome } from "./plan/plan.js";
import { describeStep, isClusterEvent } from "./plan/plan.js";
import { staleMarkers } from "./history/real-history.js";
import { sameOutcome } from "./verdict.js";

/**
 * The confirm page (confirm.html in the run's directory): the real run beside the simulated one.
 * Every plan step in a row with the model's outcome and real Kafka's, the first where they differ
 * marked; then the violations each side found, the evidence read back from the real logs, the faults
 * with how often they fired, and what was not replayed. Self-contained: no script, no network.
 */
export function confirmPage(result: ConfirmResult, title: string): string {
  const { plan, final } = result;
  const run = final.run;
  const verdict = final.verdict;
  const divergenceStep = verdict.divergence?.step ?? null;
  const rows = run.steps
    .map((s) => {
      const n = s.index + 1;
      const model = result.model.outcomes[s.index] ?? s.step.model;
      const differs = !sameOutcome(model, s.real);
      const cls = [
        n === divergenceStep ? "first-divergence" : differs ? "differs" : "",
        isClusterEvent(s.step) ? "event" : "",
      ]
        .filter(Boolean)
        .join(" ");
      return `<tr class="${cls}"><td class="n">${n}</td><td class="t">${(s.startMs / 1000).toFixed(2)} s</td><td>${escapeXml(describeStep(s.step))}</td><td>${outcome(model)}</td><td>${outcome(s.real)}</td></tr>`;
    })
    .join("\n");
  const violations = (list: readonly { kind: string; summary: string; explanation: readonly string[] }[]) =>
    list.length === 0
      ? "<p>none</p>"
      : list
          .map(
            (v) =>
              `<div class="violation"><b>${escapeXml(v.kind)}</b> ${escapeXml(v.summary)}<pre>${escapeXml(v.explanation.join("\n"))}</pre></div>`,
          )
          .join("\n");
  const evidence = staleMarkers(final.markers)
    .map(
      (m) =>
        `<h3>DumpLogSegments of ${escapeXml(m.partition)} (marker from ${escapeXml(m.source)})</h3><pre>${escapeXml(m.lines.join("\n"))}</pre>`,
    )
    .join("\n");
  const faults = run.faults
    .map(
      (f) =>
        `<li>${escapeXml(f.id)}: fired ${f.firings.length} time${f.firings.length === 1 ? "" : "s"}${f.released ? `; released at ${(f.released.atMs / 1000).toFixed(2)} s: ${escapeXml(f.released.errors.map((e) => `${e.partition} ${e.error}`).join(", "))}` : ""}</li>`,
    )
    .join("\n");
  const notes = [
    ...plan.notReplayed.map((x) => `not replayed: ${x}`),
    ...plan.unsupported.map((x) => `not supported: ${x}`),
    ...final.notes,
  ]
    .map((n) => `<li>${escapeXml(n)}</li>`)
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeXml(title)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.5em}h3{font-size:1em}
.verdict{font-weight:bold;padding:.3em .6em;border-radius:4px;display:inline-block}
.confirmed{background:#d8f5d8}.not-reproduced{background:#fbd5d5}.inconclusive{background:#fdf0c2}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}
td.n,td.t{white-space:nowrap;color:#666}tr.event td{background:#f3f3fb}
tr.differs td{background:#fff4e0}tr.first-divergence td{background:#fbd5d5;font-weight:bold}
.ok{color:#176d17}.error{color:#a11}.unknown{color:#8a6d00}
.sides{display:grid;grid-template-columns:1fr 1fr;gap:1.5em}pre{white-space:pre-wrap;font-size:12px;background:#f7f7f7;padding:.5em}
</style></head><body>
<h1>${escapeXml(title)}</h1>
<p><span class="verdict ${verdict.verdict}">${escapeXml(verdict.verdict.toUpperCase())}</span> ${escapeXml(verdict.reason)}</p>
<p>Real cluster: ${escapeXml(run.brokers.map((b) => `${b.name} Kafka ${b.kafkaVersion}`).join(", "))}; controller ${escapeXml(plan.controllerRelease)}; clients ${escapeXml(run.clientVersion)}; transaction.version ${plan.transactionVersion}. Wall ${(result.wallMs / 1000).toFixed(1)} s (cluster start ${(run.clusterStartMs / 1000).toFixed(1)} s); the simulator runs the same schedule in ${result.simulator.msPerRun.toFixed(1)} ms.</p>
<h2>Step by step: the model beside real Kafka</h2>
<table><thead><tr><th>#</th><th>real time</th><th>step</th><th>the model</th><th>real Kafka</th></tr></thead><tbody>
${rows}
</tbody></table>
<div class="sides"><div><h2>The model's violations</h2>${violations(result.model.violations)}</div><div><h2>Real Kafka's violations (same oracle)</h2>${violations(final.violations)}</div></div>
${evidence ? `<h2>Evidence</h2>${evidence}` : ""}
${faults ? `<h2>Faults</h2><ul>${faults}</ul>` : ""}
${notes ? `<h2>Notes</h2><ul>${notes}</ul>` : ""}
</body></html>
`;
}

function outcome(o: ModelOutcome): string {
  const head = o.kind === "error" ? o.error : o.kind;
  return `<span class="${o.kind}">${escapeXml(head)}</span>${o.detail ? ` ${escapeXml(o.detail)}` : ""}`;
}
