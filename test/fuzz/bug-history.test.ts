import { describe, expect, it } from "vitest";
import { BUG_HISTORY, findBug, isModelled } from "../../src/fuzz/catalogue/bug-history.js";
import { runBug } from "../../src/fuzz/catalogue/bug-history-run.js";
import { FLAG_NAMES, RELEASES, type ReleaseFlags } from "../../src/kafka/release.js";
import { VIOLATION_KINDS } from "../../src/oracle/violation.js";
import { resolveScenario } from "../../src/scenario/loader.js";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { renderStory } from "../../src/oracle/story.js";
import { eosfuzz } from "../cli/cli-helpers.js";

/** The fast subset: bugs found within a few seeds, each run on and off over this budget. */
const FAST: [string, number][] = [
  ["Z01", 30],
  ["Z02", 5],
  ["Z03", 3],
  ["Z04", 10],
  ["Z05", 5],
  ["Z07", 5],
  ["Z08", 5],
  ["Z13", 20],
  ["Z14", 20],
  ["Z15", 10],
  ["Z16", 10],
  ["Z19", 30],
  ["Z22", 5],
  ["Z27", 10],
  ["Z28", 5],
  ["Z29", 5],
  ["Z30", 5],
  ["Z31", 3],
  ["Z32", 5],
  ["Z33", 32],
  ["Z34", 5],
  ["Z35", 5],
  ["Z36", 5],
];

let clock = 0;
const now = () => clock++;

describe("the bug catalogue", () => {
  it("has BUG-ZOO's 36 entries, each with its KAFKA id, a PR, a symptom and a flag name", () => {
    expect(BUG_HISTORY.map((b) => b.id)).toEqual(
      Array.from({ length: 36 }, (_, i) => `Z${`${i + 1}`.padStart(2, "0")}`),
    );
    for (const b of BUG_HISTORY) {
      expect(b.kafka, b.id).toMatch(/KAFKA-\d+|KIP-\d+/);
      for (const pr of b.prs) expect(pr).toMatch(/^https:\/\/github\.com\/apache\/kafka\/pull\/\d+$/);
      expect(b.prs.length, b.id).toBeGreaterThan(0);
      expect(b.flag.length, b.id).toBeGreaterThan(0);
      for (const k of b.kinds) expect(VIOLATION_KINDS).toContain(k);
      // Every bug the benchmark does not find says why.
      if (!b.expectFound) expect(b.missing, b.id).toBeTruthy();
    }
  });

  it("every modelled bug names real flags that change its scenario's releases, on a built-in scenario", () => {
    for (const b of BUG_HISTORY.filter(isModelled)) {
      const releases = new Set(resolveScenario(b.scenario).scenario.cluster.brokers.map((n) => n.release));
      const fixed: Partial<ReleaseFlags> = b.fixed ?? {};
      const changed = Object.entries(b.bug).filter(([flag, value]) => {
        expect(FLAG_NAMES, b.id).toContain(flag);
        const off = (rel: keyof typeof RELEASES) =>
          (fixed as Record<string, unknown>)[flag] ?? RELEASES[rel][flag as keyof ReleaseFlags];
        return [...releases].some((rel) => off(rel) !== value);
      });
      expect(changed.length, b.id).toBeGreaterThan(0);
      expect(b.kinds.length, b.id).toBeGreaterThan(0);
    }
  });

  it("finds a bug by its entry or its Kafka ticket", () => {
    expect(findBug("z14")?.id).toBe("Z14");
    expect(findBug("KAFKA-19999")?.id).toBe("Z15");
    expect(findBug("KAFKA-20357")?.id).toBe("Z11");
    expect(findBug("KAFKA-1")).toBeUndefined();
  });
});

describe("the fast subset, found blind", () => {
  it.each(FAST)("%s: the bug on shows its symptom within %i seeds, the bug off does not", (id, budget) => {
    const bug = findBug(id);
    if (!bug) throw new Error(id);
    const o = runBug(bug, { budgetSeeds: budget, shrinkBudgetMs: 0, now });
    expect(o.modelled).toBe(true);
    expect(o.firstSeed, o.why ?? "").not.toBeNull();
    expect(o.symptomSeedsOff, o.why ?? "").toBe(0);
    expect(o.found).toBe(true);
    expect(bug.kinds).toContain(Object.keys(o.kindsOn).find((k) => bug.kinds.includes(k as never)));
    expect(o.explanation.length).toBeGreaterThan(20);
  });

  it("Z04: the hang names the lost completion wake-up, not markers still being re-sent", () => {
    const o = runBug(findBug("Z04") as NonNullable<ReturnType<typeof findBug>>, {
      budgetSeeds: 10,
      shrinkBudgetMs: 0,
      now,
    });
    expect(o.explanation).toMatch(/completion wake-up was lost/);
  });

  it("Z33, Z34: the symptoms are the group coordinator's: a stuck LSO at __consumer_offsets, a fenced member's offsets", () => {
    const run = (id: string, budgetSeeds: number) =>
      runBug(findBug(id) as NonNullable<ReturnType<typeof findBug>>, { budgetSeeds, shrinkBudgetMs: 0, now });
    expect(run("Z33", 32).explanation).toMatch(/^__consumer_offsets-\d+ on broker-\d \(3\.x\): LSO stuck/);
    expect(run("Z34", 5).explanation).toMatch(
      /of a fenced member took effect: generation \d+, while the group was at generation \d+/,
    );
  });

  it("Z33, Z34: the story shows the group coordinator's steps (two writes around CompleteCommit; validation, new generation, write)", () => {
    const storyOf = (scenario: string, overrides: Partial<ReleaseFlags>, seed: number) => {
      const run = runSeed(runConfigFor(resolveScenario(scenario), overrides), { seed }, { recordTrace: true });
      const v = run.violations.find((x) => x.kind === "hanging-transaction" || x.kind === "zombie-commit");
      if (!v) throw new Error(`no violation at seed ${seed} of ${scenario}`);
      return renderStory(run.trace ?? [], v).join("\n");
    };
    const z33 = storyOf("bugs/processor-tv1", { txnOffsetCommitUnverified: true }, 31);
    expect(z33).toMatch(
      /writes (q\d\.t\d+)'s TxnOffsetCommit[^\n]*\n(.*\n)*.*writes CompleteCommit for \1\n(.*\n)*.*writes \1's TxnOffsetCommit/,
    );
    const z34 = storyOf("kip-447-zombie", { txnOffsetValidateBeforeVerify: true }, 3);
    expect(z34).toMatch(/validates q1#2\.t31's TxnOffsetCommit on arrival \(member \S+, generation 8;/);
    expect(z34).toMatch(
      /the join completes, group eos-app is at generation 9[^\n]*\n(.*\n)*.*writes q1#2\.t31's TxnOffsetCommit/,
    );
  });

  it("a bug the model does not express says what is missing and runs nothing", () => {
    const o = runBug(findBug("Z26") as NonNullable<ReturnType<typeof findBug>>, {
      budgetSeeds: 10,
      shrinkBudgetMs: 0,
      now,
    });
    expect(o).toMatchObject({ modelled: false, found: false, seedsOn: 0, seedsOff: 0 });
    expect(o.why).toMatch(/CLEAN/);
  });
});

describe("eosfuzz bugs", () => {
  it("lists the catalogue, and --json gives every entry's fields", () => {
    const r = eosfuzz(["bugs"]);
    expect(r.code).toBe(0);
    // A table: each ticket of each entry is in it (an entry's several tickets wrap within its cell).
    for (const b of BUG_HISTORY)
      for (const ticket of b.kafka.match(/(KAFKA|KIP)-\d+/g) ?? []) expect(r.stdout).toContain(ticket);
    const json = JSON.parse(eosfuzz(["bugs", "--json"]).stdout);
    expect(json).toHaveLength(36);
    expect(json[13]).toMatchObject({ id: "Z14", scenario: "kip-1228", modelled: true, expectFound: true });
  });

  it("run: one bug as JSON, exit 0 when found; an unknown id or a bad budget is one line, exit 2", () => {
    const r = eosfuzz(["bugs", "run", "Z15", "--budget-seeds", "5", "--shrink-budget-ms", "0", "--json"]);
    expect(r.code).toBe(0);
    const [o] = JSON.parse(r.stdout);
    expect(o).toMatchObject({ id: "Z15", found: true, firstSeed: 0, seedsOff: 5, symptomSeedsOff: 0 });
    const unknown = eosfuzz(["bugs", "run", "Z99"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split("\n")).toHaveLength(1);
    const badBudget = eosfuzz(["bugs", "run", "Z15", "--budget-seeds", "0"]);
    expect(badBudget.code).toBe(2);
    const badWord = eosfuzz(["bugs", "walk"]);
    expect(badWord.code).toBe(2);
  });
});
