import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { eosfuzz, ROOT } from "../cli/cli-helpers.js";
import { firstGapFailure } from "../report/report-fixtures.js";

/** Debian's Chromium (`apt-get install -y chromium`); .ci/run installs it when it can. */
const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
const SCREENSHOT_DIR = join(ROOT, ".tmp", "browser");

if (!hasChromium)
  console.warn(`SKIPPED: the browser test needs ${CHROMIUM} (apt-get install -y chromium); it was not found`);

describe.skipIf(!hasChromium)(
  `the HTML report in headless Chromium${hasChromium ? "" : ` (SKIPPED: ${CHROMIUM} not installed)`}`,
  () => {
    it("draws lanes, the stale marker and fault bands, steps with the slider, and fetches nothing", {
      timeout: 90_000,
    }, async () => {
      const { trace } = firstGapFailure();
      const out = mkdtempSync(join(tmpdir(), "eosfuzz-browser-"));
      const run = eosfuzz([
        "run",
        "--scenario",
        "kip-1228-gap",
        "--seed-start",
        String(trace.seed),
        "--seeds",
        "1",
        "--out",
        out,
      ]);
      expect(run.code).toBe(0);
      const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "eosfuzz-chromium-")), {
        executablePath: CHROMIUM,
        headless: true,
        args: [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
        ],
        viewport: { width: 1500, height: 1100 },
      });
      try {
        const page = context.pages()[0] ?? (await context.newPage());
        const requests: string[] = [];
        const errors: string[] = [];
        page.on("request", (r) => requests.push(r.url()));
        page.on("pageerror", (e) => errors.push(e.message));
        await page.goto(`file://${join(out, "index.html")}`);
        const diagram = page.locator(`#diagram-${trace.seed}`);

        const lanes = await diagram.locator("svg.lanes-head .lane-name").allTextContents();
        expect(lanes).toEqual(expect.arrayContaining(["broker-0", "broker-1", "broker-2", "p0", "c0"]));
        const laneLines = await diagram.locator("svg.spacetime g.lane line").count();
        expect(laneLines).toBe(lanes.length);

        await diagram.locator("button[data-act=violation]").click();
        const staleDot = diagram.locator("g.ev.em-stale.current");
        await expect.poll(() => staleDot.count()).toBe(1);
        expect(await staleDot.locator("circle").boundingBox()).not.toBeNull();
        const staleArrow = diagram.locator("g.msg.em-stale.msg-request line").first();
        const arrowBox = await staleArrow.boundingBox();
        expect(arrowBox?.height ?? 0).toBeGreaterThan(20);
        expect(await diagram.locator("g.ev.em-victim").count()).toBeGreaterThan(0);
        expect(await diagram.locator(".details").textContent()).toMatch(/marker\.append .*rule=legacy/);

        // Fault bands: the stale copy's time in the slow network, and the quiet period.
        for (const band of ["band-slow", "band-quiet"]) {
          const box = await diagram.locator(`g.${band} rect`).first().boundingBox();
          expect(box?.height ?? 0, band).toBeGreaterThan(4);
        }

        mkdirSync(SCREENSHOT_DIR, { recursive: true });
        const screenshot = join(SCREENSHOT_DIR, "report-stale-marker.png");
        await page.screenshot({ path: screenshot });
        expect(statSync(screenshot).size).toBeGreaterThan(10_000);

        // The slider replays the run: at step 0 only the first event is shown; "next" moves by one event.
        const readout = diagram.locator(".step-readout");
        const slider = diagram.locator("input.step");
        await slider.fill("0");
        await expect.poll(() => readout.textContent()).toMatch(/^step 1 of \d+/);
        const shown = await diagram.locator("svg.spacetime [data-i]:not(.future)").count();
        const total = await diagram.locator("svg.spacetime [data-i]").count();
        expect(shown).toBeLessThan(5);
        expect(total).toBeGreaterThan(1000);
        await diagram.locator("button[data-act=next]").click();
        await diagram.locator("button[data-act=next]").click();
        await expect.poll(() => readout.textContent()).toMatch(/^step 3 of/);
        expect(await diagram.locator("svg.spacetime [data-i]:not(.future)").count()).toBeGreaterThan(shown);
        await diagram.locator("button[data-act=last]").click();
        expect(await diagram.locator("svg.spacetime [data-i].future").count()).toBe(0);

        expect(errors).toEqual([]);
        expect(requests.filter((u) => !u.startsWith("file://"))).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it("charts keep their legends' colours, sections have headings in words, and no label overlaps another or runs out of its picture", {
      timeout: 120_000,
    }, async () => {
      // Long node names, so that lane names have to fit; 200 seeds, so that the charts have several kinds.
      const dir = mkdtempSync(join(tmpdir(), "eosfuzz-browser-geometry-"));
      const scenario = join(dir, "long-names.yaml");
      writeFileSync(
        scenario,
        readFileSync(join(ROOT, "scenarios", "kip-1228-gap.yaml"), "utf8")
          .replace(/^name: .*$/m, "name: long-names")
          .replaceAll("broker-1", "broker-in-eu-west-1-zone-b")
          .replaceAll("broker-2", "broker-in-eu-west-1-zone-c"),
      );
      const out = join(dir, "out");
      const run = eosfuzz([
        "run",
        "--scenario",
        scenario,
        "--seeds",
        "200",
        "--workers",
        "2",
        "--no-progress",
        "--out",
        out,
      ]);
      expect(run.code, run.stderr).toBe(0);
      const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "eosfuzz-chromium-")), {
        executablePath: CHROMIUM,
        headless: true,
        args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
        viewport: { width: 1400, height: 1000 },
      });
      try {
        const page = context.pages()[0] ?? (await context.newPage());
        await page.goto(`file://${join(out, "index.html")}`);
        const found = await page.evaluate(() => {
          type Box = { left: number; right: number; top: number; bottom: number };
          const box = (e: Element): Box => e.getBoundingClientRect();
          const overlap = (a: Box, b: Box) =>
            a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
          const inside = (a: Box, b: Box) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5;
          const shown = (e: Element) => getComputedStyle(e).display !== "none";
          const problems: string[] = [];
          const check = (what: string, frame: Element, texts: Element[]) => {
            const frameBox = box(frame);
            texts.forEach((t, i) => {
              if (!inside(box(t), frameBox)) problems.push(`${what}: "${t.textContent}" runs out of its picture`);
              for (const u of texts.slice(i + 1))
                if (overlap(box(t), box(u))) problems.push(`${what}: "${t.textContent}" overlaps "${u.textContent}"`);
            });
          };
          for (const chart of document.querySelectorAll("svg.chart"))
            check("chart", chart, [...chart.querySelectorAll("text")]);
          for (const head of document.querySelectorAll("svg.lanes-head"))
            for (const cls of ["lane-name", "lane-sub"])
              check("lane header", head, [...head.querySelectorAll(`text.${cls}`)]);
          for (const svg of document.querySelectorAll("svg.spacetime"))
            check(
              "diagram",
              svg,
              [...svg.querySelectorAll("text.alabel, text.elabel, .violation-line text, .band text")].filter(shown),
            );
          const legend = [...document.querySelectorAll(".chart-legend li")].map((li) => {
            const kind = li.getAttribute("data-kind") ?? "";
            const curve = document.querySelector(`path.curve[data-kind="${kind}"]`);
            return {
              kind,
              curve: curve ? getComputedStyle(curve).stroke : null,
              swatch: getComputedStyle(li.querySelector(".swatch") as Element).backgroundColor,
              text: getComputedStyle(li.querySelector("span") as Element).color,
            };
          });
          const headings = [...document.querySelectorAll("h2")].map((h) => h.textContent ?? "");
          const labelsShown = [
            ...document.querySelectorAll("svg.spacetime text.elabel, svg.spacetime text.alabel"),
          ].filter(shown).length;
          return { problems, legend, headings, labelsShown };
        });
        expect(found.problems).toEqual([]);
        expect(found.labelsShown).toBeGreaterThan(5);
        expect(found.legend.length).toBeGreaterThanOrEqual(3);
        for (const entry of found.legend) {
          expect(entry.curve, entry.kind).not.toBeNull();
          expect(entry.swatch, entry.kind).toBe(entry.curve);
          expect(entry.text, entry.kind).toBe(entry.curve);
        }
        // Headings are words, not field names of run.json (modelFailures, seedsPlanned, shrunk, ...).
        expect(found.headings.filter((h) => /^[a-z]|[a-z][A-Z]/.test(h))).toEqual([]);
        expect(found.headings).toEqual(
          expect.arrayContaining(["Search", "What the sweep showed", "The first failure, shrunk"]),
        );
        mkdirSync(SCREENSHOT_DIR, { recursive: true });
        await page.screenshot({ path: join(SCREENSHOT_DIR, "report-geometry.png"), fullPage: true });
      } finally {
        await context.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("opens at the shrunk failure's violation, full run one click away; labels apart; a legend of what is drawn", {
      timeout: 120_000,
    }, async () => {
      const out = mkdtempSync(join(tmpdir(), "eosfuzz-browser-open-"));
      const run = eosfuzz(["run", "--scenario", "kip-1228-gap", "--seed-start", "6", "--seeds", "1", "--out", out]);
      expect(run.code, run.stderr).toBe(0);
      const viewport = { width: 1400, height: 1000 };
      const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "eosfuzz-chromium-")), {
        executablePath: CHROMIUM,
        headless: true,
        args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
        viewport,
      });
      try {
        const page = context.pages()[0] ?? (await context.newPage());
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(e.message));
        await page.goto(`file://${join(out, "index.html")}`);
        const layout = await page.evaluate(() => {
          type Box = { left: number; right: number; top: number; bottom: number };
          const box = (e: Element): Box => e.getBoundingClientRect();
          const overlap = (a: Box, b: Box) =>
            a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
          const shrunk = document.querySelector("#diagram-shrunk") as Element;
          const scroll = box(shrunk.querySelector(".scroll") as Element);
          const current = shrunk.querySelector("g.ev.current");
          const view = { left: 0, top: 0, right: window.innerWidth, bottom: window.innerHeight };
          const inView = (b: Box) =>
            b.top >= view.top && b.bottom <= view.bottom && b.left >= view.left && b.right <= view.right;
          const visibleIn = (b: Box, frame: Box) => b.top >= frame.top && b.bottom <= frame.bottom;
          // Labels shown in the part of the diagram the reader sees.
          const labels = [...shrunk.querySelectorAll("svg.spacetime text")]
            .filter((t) => t.matches("text.alabel, text.elabel, .violation-line text, .band text"))
            .filter((t) => getComputedStyle(t).display !== "none" && !t.closest(".future"))
            .map((t) => ({ text: t.textContent ?? "", box: box(t) }))
            .filter((l) => visibleIn(l.box, scroll));
          const overlaps: string[] = [];
          labels.forEach((a, i) => {
            for (const b of labels.slice(i + 1)) if (overlap(a.box, b.box)) overlaps.push(`"${a.text}" / "${b.text}"`);
          });
          // Each legend entry names something drawn in its diagram, and each kind of thing drawn has its entry.
          const drawnBy: Record<string, string> = {
            markers: "g.msg.key",
            messages: "g.msg:not(.key)",
            stale: ".em-stale",
            victim: ".em-victim",
            related: ".em-related",
            delayed: "g.msg.delayed",
            late: "g.msg.fate-late",
            duplicate: "g.msg.dup",
            dropped: "g.msg.fate-dropped",
            lost: "g.msg.fate-lost",
          };
          const legendCheck = (section: Element) => {
            const svg = section.querySelector("svg.spacetime") as Element;
            const entries = [...section.querySelectorAll(".legend [data-legend]")].map(
              (e) => e.getAttribute("data-legend") ?? "",
            );
            const selector = (id: string) =>
              drawnBy[id] ?? (id.startsWith("band-") ? `g.band.${id}` : `g.ev.cat-${id.slice("dot-".length)}`);
            const undrawn = entries.filter((id) => svg.querySelector(selector(id)) === null);
            const cats = [
              ...new Set(
                [...svg.querySelectorAll("g.ev")].map((g) => [...g.classList].find((c) => c.startsWith("cat-"))),
              ),
            ];
            const bands = [
              ...new Set(
                [...svg.querySelectorAll("g.band")].map((g) => [...g.classList].find((c) => c.startsWith("band-"))),
              ),
            ];
            const unexplained = [...cats.map((c) => `dot-${(c ?? "").slice(4)}`), ...bands.map((b) => b ?? "")].filter(
              (id) => !entries.includes(id),
            );
            return { entries, undrawn, unexplained, legend: box(section.querySelector(".legend") as Element) };
          };
          const full = document.querySelector("#diagram-6") as Element;
          const link = shrunk.querySelector('a[href="#seed-6"]');
          return {
            shrunkTop: box(shrunk).top,
            current: current
              ? { cls: current.getAttribute("class"), box: box(current.querySelector("circle") as Element) }
              : null,
            currentInView: current
              ? inView(box(current.querySelector("circle") as Element)) && visibleIn(box(current), scroll)
              : false,
            labels: labels.length,
            overlaps,
            shrunkLegend: legendCheck(shrunk),
            fullLegend: legendCheck(full),
            legendInView: inView(box(shrunk.querySelector(".legend") as Element)),
            link: link !== null,
          };
        });
        // The page opens on the shrunk run (first on the page), at its violation, in view; not at t=0.
        expect(layout.shrunkTop).toBeLessThan(viewport.height / 3);
        expect(layout.current?.cls).toMatch(/em-stale/);
        expect(layout.currentInView).toBe(true);
        expect(layout.legendInView).toBe(true);
        expect(layout.labels).toBeGreaterThan(3);
        expect(layout.overlaps).toEqual([]);
        for (const legend of [layout.shrunkLegend, layout.fullLegend]) {
          expect(legend.undrawn).toEqual([]);
          expect(legend.unexplained).toEqual([]);
        }
        // What a run contains decides its legend: the full run draws kinds the shrunk one does not.
        expect(layout.fullLegend.entries.length).toBeGreaterThanOrEqual(layout.shrunkLegend.entries.length);
        // The full run is one click away.
        expect(layout.link).toBe(true);
        await page.locator('#diagram-shrunk a[href="#seed-6"]').click();
        const fullTop = await page.locator("#seed-6").evaluate((e) => e.getBoundingClientRect().top);
        expect(Math.abs(fullTop)).toBeLessThan(50);
        expect(errors).toEqual([]);
        mkdirSync(SCREENSHOT_DIR, { recursive: true });
        await page.screenshot({ path: join(SCREENSHOT_DIR, "report-opens-at-violation.png") });
      } finally {
        await context.close();
        rmSync(out, { recursive: true, force: true });
      }
    });
  },
);
