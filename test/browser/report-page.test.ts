import { existsSync, mkdirSync, mkdtempSync, statSync } from "node:fs";
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
  },
);
