import { escapeXml } from "./escape.js";

/** Bounds for rendering data this page does not know (fields other commands add to run.json). */
const MAX_ROWS = 200;
const MAX_DEPTH = 4;

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function scalar(v: unknown): string {
  if (typeof v === "number") return `<span class="mono">${v.toLocaleString("en-US")}</span>`;
  if (typeof v === "boolean") return v ? `<span class="pill ok">yes</span>` : `<span class="pill bad">no</span>`;
  if (v === null || v === undefined) return `<span class="muted">-</span>`;
  return escapeXml(String(v));
}

/**
 * Any JSON value as HTML: objects as two-column tables, arrays of objects as tables with a column
 * per key, other arrays inline. Lets the page show sections (coverage, statistics, shards) that
 * other parts of eosfuzz add to run.json without this page knowing their shape.
 */
export function renderExtraField(value: unknown, depth = 0): string {
  if (depth > MAX_DEPTH) return `<code>${escapeXml(JSON.stringify(value).slice(0, 200))}</code>`;
  if (Array.isArray(value)) {
    if (value.length === 0) return `<span class="muted">(none)</span>`;
    if (value.every(isRecord)) {
      const columns = [...new Set(value.flatMap((row) => Object.keys(row)))];
      const rows = value
        .slice(0, MAX_ROWS)
        .map((row) => `<tr>${columns.map((c) => `<td>${renderExtraField(row[c], depth + 1)}</td>`).join("")}</tr>`);
      const more =
        value.length > MAX_ROWS ? `<p class="muted">${value.length - MAX_ROWS} more rows in run.json.</p>` : "";
      return `<table><tr>${columns.map((c) => `<th>${escapeXml(c)}</th>`).join("")}</tr>${rows.join("")}</table>${more}`;
    }
    const shown = value.slice(0, MAX_ROWS).map((v) => renderExtraField(v, depth + 1));
    return `${shown.join(", ")}${value.length > MAX_ROWS ? ` … (${value.length} in all)` : ""}`;
  }
  if (isRecord(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return `<span class="muted">(empty)</span>`;
    const rows = entries
      .slice(0, MAX_ROWS)
      .map(([k, v]) => `<tr><th>${escapeXml(k)}</th><td>${renderExtraField(v, depth + 1)}</td></tr>`);
    return `<table>${rows.join("")}</table>`;
  }
  return scalar(value);
}
