import type { RunReport } from "../run-report.js";
import { escapeXml } from "./escape.js";

/** Violations counted by kind and by the release of the broker where they happened. */
export interface KindByRelease {
  kinds: string[];
  releases: string[];
  /** count[kind][release]: violations; seeds[kind]: distinct seeds. */
  count: Record<string, Record<string, number>>;
  seeds: Record<string, number>;
  unexpected: Record<string, boolean>;
}

const NO_BROKER = "(no broker)";

export function kindByRelease(report: RunReport): KindByRelease {
  const count: Record<string, Record<string, number>> = {};
  const seedSets: Record<string, Set<number>> = {};
  const unexpected: Record<string, boolean> = {};
  const releases = new Set<string>();
  for (const v of report.violations) {
    const release = v.brokerRelease ?? NO_BROKER;
    releases.add(release);
    const row = count[v.kind] ?? {};
    row[release] = (row[release] ?? 0) + 1;
    count[v.kind] = row;
    (seedSets[v.kind] ??= new Set()).add(v.seed);
    unexpected[v.kind] = (unexpected[v.kind] ?? false) || v.unexpected;
  }
  const kinds = Object.keys(count).sort();
  const seeds = Object.fromEntries(kinds.map((k) => [k, seedSets[k]?.size ?? 0]));
  return { kinds, releases: [...releases].sort(), count, seeds, unexpected };
}

export function renderKindByReleaseTable(data: KindByRelease): string {
  if (data.kinds.length === 0) return `<p class="muted">No violations.</p>`;
  const head = `<tr><th>kind</th>${data.releases.map((r) => `<th>broker on ${escapeXml(r)}</th>`).join("")}<th>seeds</th></tr>`;
  const rows = data.kinds.map((k) => {
    const cells = data.releases.map((r) => `<td class="num">${data.count[k]?.[r] ?? ""}</td>`).join("");
    const pill = data.unexpected[k]
      ? ` <span class="pill bad">unexpected</span>`
      : ` <span class="pill ok">expected</span>`;
    return `<tr><td>${escapeXml(k)}${pill}</td>${cells}<td class="num">${data.seeds[k] ?? 0}</td></tr>`;
  });
  return `<table class="by-release">${head}${rows.join("")}</table>`;
}

/** Width of a chart label in px (11 px system font: about 6.5 px a character, digits and letters alike). */
export function labelWidth(text: string): number {
  return Math.ceil(text.length * 6.5) + 4;
}

/** Horizontal bars: violations per (kind, release). The label column is as wide as its longest label. */
export function renderKindByReleaseBars(data: KindByRelease): string {
  const bars = data.kinds.flatMap((k) =>
    data.releases.filter((r) => data.count[k]?.[r]).map((r) => ({ k, r, n: data.count[k]?.[r] ?? 0 })),
  );
  if (bars.length === 0) return "";
  const max = Math.max(...bars.map((b) => b.n));
  const rowH = 22;
  const labelW = Math.max(120, ...bars.map((b) => labelWidth(`${b.k} @ ${b.r}`))) + 8;
  const barW = 360;
  const countW = labelWidth(String(max)) + 10;
  const height = bars.length * rowH + 10;
  const rows = bars.map((b, i) => {
    const y = 5 + i * rowH;
    const w = Math.max(2, Math.round((b.n / max) * barW));
    return `<text x="${labelW - 8}" y="${y + 14}" text-anchor="end">${escapeXml(`${b.k} @ ${b.r}`)}</text><rect class="bar${data.unexpected[b.k] ? " unexpected" : ""}" x="${labelW}" y="${y + 3}" width="${w}" height="${rowH - 8}"/><text x="${labelW + w + 5}" y="${y + 14}">${b.n}</text>`;
  });
  return `<svg class="chart by-release-chart" xmlns="http://www.w3.org/2000/svg" width="${labelW + barW + countW}" height="${height}">${rows.join("")}</svg>`;
}

const PALETTE = ["#cf222e", "#0969da", "#8250df", "#1a7f37", "#bf8700", "#57606a"];

/** Points of the seeds-to-first-violation curve: failing seeds so far, per kind, against seeds run. */
export function discoveryCurve(report: RunReport): { kind: string; firstSeed: number; points: [number, number][] }[] {
  const seedsByKind = new Map<string, number[]>();
  for (const v of report.violations) {
    const list = seedsByKind.get(v.kind) ?? [];
    if (list.at(-1) !== v.seed) list.push(v.seed);
    seedsByKind.set(v.kind, list);
  }
  return [...seedsByKind.keys()].sort().map((kind) => {
    const seeds = seedsByKind.get(kind) as number[];
    const points: [number, number][] = [[0, 0]];
    seeds.forEach((seed, i) => {
      const x = seed - report.seedStart + 1;
      points.push([x - 1, i], [x, i + 1]);
    });
    points.push([report.seedsRun, seeds.length]);
    return { kind, firstSeed: seeds[0] as number, points };
  });
}

export function renderDiscoveryCurve(report: RunReport): string {
  const curves = discoveryCurve(report);
  if (curves.length === 0 || report.seedsRun === 0)
    return `<p class="muted">No violation found in ${report.seedsRun} seeds.</p>`;
  const W = 640;
  const H = 260;
  const B = 34;
  const maxY = Math.max(1, ...curves.map((c) => c.points.at(-1)?.[1] ?? 0));
  // The left margin holds the rotated axis title (about 20 px) and the widest tick label.
  const L = 26 + labelWidth(String(maxY)) + 8;
  const sx = (x: number) => L + (x / report.seedsRun) * (W - L - 20);
  const sy = (y: number) => H - B - (y / maxY) * (H - B - 16);
  const parts: string[] = [
    `<line class="axisline" x1="${L}" y1="${H - B}" x2="${W - 10}" y2="${H - B}"/><line class="axisline" x1="${L}" y1="${H - B}" x2="${L}" y2="10"/>`,
    `<text x="${(L + W) / 2}" y="${H - 4}" text-anchor="middle">seeds run (from seed ${report.seedStart})</text>`,
    `<text x="14" y="${(H - B) / 2}" transform="rotate(-90 14 ${(H - B) / 2})" text-anchor="middle">seeds with a violation</text>`,
    `<text x="${L - 6}" y="${sy(maxY) + 4}" text-anchor="end">${maxY}</text><text x="${L - 6}" y="${H - B + 4}" text-anchor="end">0</text>`,
    `<text x="${sx(report.seedsRun)}" y="${H - B + 14}" text-anchor="end">${report.seedsRun}</text>`,
  ];
  const legend: string[] = [];
  curves.forEach((c, i) => {
    const colour = PALETTE[i % PALETTE.length];
    const d = c.points.map(([x, y], j) => `${j === 0 ? "M" : "L"}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join("");
    const firstX = sx(c.firstSeed - report.seedStart + 1);
    parts.push(
      `<path class="curve" data-kind="${escapeXml(c.kind)}" d="${d}" stroke="${colour}"/><circle cx="${firstX.toFixed(1)}" cy="${sy(1).toFixed(1)}" r="4" fill="${colour}"><title>first ${escapeXml(c.kind)} at seed ${c.firstSeed}</title></circle>`,
    );
    // The legend is HTML beside the chart: it never covers a curve, wraps instead of being cut, and
    // its colour is set where the chart's stylesheet (svg.chart text) cannot override it.
    legend.push(
      `<li data-kind="${escapeXml(c.kind)}"><i class="swatch" style="background:${colour}"></i><span style="color:${colour}">${escapeXml(c.kind)}</span>: first at seed ${c.firstSeed} (${c.firstSeed - report.seedStart + 1} seeds in), ${c.points.at(-1)?.[1]} seeds in all</li>`,
    );
  });
  return `<div class="chart-with-legend"><svg class="chart discovery-curve" xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${parts.join("")}</svg><ul class="chart-legend">${legend.join("")}</ul></div>`;
}
