import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eosfuzz } from "./cli-helpers.js";

// A scenario is its file, not its `name:` (issue 30, item 6): two edited copies of the starter keep
// one name, and regress, seed files and init tell them apart by path.

describe("init takes a name or a path", () => {
  it("our-cluster -> our-cluster.yaml; foo.yaml -> foo.yaml; eos/bar.yml -> eos/bar.yml named bar", () => {
    const dir = mkdtempSync(join(tmpdir(), "eosfuzz-init-"));
    for (const arg of ["our-cluster", "foo.yaml", "eos/bar.yml"])
      expect(eosfuzz(["init", arg], { cwd: dir }).code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(["eos", "foo.yaml", "our-cluster.yaml"]);
    expect(readdirSync(join(dir, "eos"))).toEqual(["bar.yml"]);
    expect(readFileSync(join(dir, "foo.yaml"), "utf8")).toMatch(/^name: foo$/m);
    expect(readFileSync(join(dir, "eos", "bar.yml"), "utf8")).toMatch(/^name: bar$/m);
    const bad = eosfuzz(["init", "Eos/Our Cluster.yaml"], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^eosfuzz: eosfuzz init NAME: expected a file whose name .* found "Our Cluster\.yaml"\n$/,
    );
  });
});

describe("two files of one scenario name", () => {
  it("are two rows in regress, and each one's seeds are named after it and pinned to it", () => {
    const dir = mkdtempSync(join(tmpdir(), "eosfuzz-identity-"));
    const scenarios = join(dir, "scn");
    mkdirSync(scenarios);
    expect(eosfuzz(["init", "scn/our-cluster.yaml"], { cwd: dir }).code).toBe(0);
    // Both copies: every broker on 4.1 (a stale marker within 20 seeds), 20 seeds; a-team.yaml (first in
    // name order, so a lookup by scenario name would find the other) also edits its description.
    const starter = readFileSync(join(scenarios, "our-cluster.yaml"), "utf8")
      .replaceAll('release: "4.2.1" }', 'release: "4.1" }')
      .replace(/^seeds: \d+$/m, "seeds: 20");
    expect(starter).toMatch(/^name: our-cluster$/m);
    writeFileSync(join(scenarios, "our-cluster.yaml"), starter);
    writeFileSync(
      join(scenarios, "a-team.yaml"),
      starter.replace(/^description: >$/m, "description: >\n  Team A's copy."),
    );

    const run = eosfuzz(
      ["run", "--scenario", "scn/a-team.yaml", "--save-failures", "seeds", "--no-shrink", "--no-progress"],
      { cwd: dir },
    );
    expect(run.code, run.stderr).toBe(1);
    const saved = readdirSync(join(dir, "seeds"));
    expect(saved.length).toBeGreaterThan(0);
    for (const f of saved) expect(f).toMatch(/^a-team\.seed-\d+\.json$/);

    // The other copy is edited after the seeds were saved: a-team's seeds are not its.
    writeFileSync(join(scenarios, "our-cluster.yaml"), starter.replace("description: >", "description: >\n  Edited."));
    const regress = () =>
      JSON.parse(eosfuzz(["regress", "--scenarios", "scn", "--seeds", "seeds", "--json"], { cwd: dir }).stdout);
    const first = regress();
    const names = first.rows
      .filter((r: { kind: string }) => r.kind === "scenario")
      .map((r: { name: string }) => r.name);
    expect(names).toEqual(["our-cluster (a-team.yaml)", "our-cluster (our-cluster.yaml)"]);
    for (const row of first.rows.filter((r: { kind: string }) => r.kind === "seed")) {
      expect(row.result).toBe("pass");
      expect(row.detail).not.toMatch(/changed since/);
    }
    // Editing a-team.yaml itself is what its seeds notice.
    writeFileSync(join(scenarios, "a-team.yaml"), starter.replace("description: >", "description: >\n  Edited too."));
    for (const row of regress().rows.filter((r: { kind: string }) => r.kind === "seed"))
      expect(row.detail).toMatch(/note: scn\/a-team\.yaml changed since this seed was saved/);
    expect(existsSync(join(dir, "seeds", "our-cluster.seed-0.json"))).toBe(false);
  });
});
