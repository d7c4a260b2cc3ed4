import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { builtinScenarioNames, resolveScenario } from "../../src/scenario/loader.js";

/** Where the typed event maps are declared, and the interfaces that declare them. */
const MAPS: Record<string, string[]> = {
  "src/kafka/trace-events.ts": ["KafkaEvents"],
  "src/sim/net-events.ts": ["NetEvents", "NetAnnotations"],
  "src/scenario/script-events.ts": ["ScriptEvents"],
};

/**
 * Every declared kind -> the field lists its events may carry, in declaration order (a union of
 * object types gives several). Read from the source with the compiler: the maps are types only.
 */
function declaredKinds(): Map<string, string[][]> {
  const files = Object.keys(MAPS).map((f) => fileURLToPath(new URL(`../../${f}`, import.meta.url)));
  const program = ts.createProgram(files, { strict: true, noEmit: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  const maps = new Map<string, Map<string, string[][]>>();
  for (const file of files) {
    const source = program.getSourceFile(file) as ts.SourceFile;
    for (const statement of source.statements) {
      if (!ts.isInterfaceDeclaration(statement)) continue;
      const kinds = new Map<string, string[][]>();
      for (const kind of checker.getPropertiesOfType(checker.getTypeAtLocation(statement))) {
        const fields = checker.getTypeOfSymbolAtLocation(kind, statement);
        const shapes = fields.isUnion() ? fields.types : [fields];
        kinds.set(
          kind.name,
          shapes.map((shape) => checker.getPropertiesOfType(shape).map((p) => p.name)),
        );
      }
      maps.set(statement.name.text, kinds);
    }
  }
  const annotations = maps.get("NetAnnotations") as Map<string, string[][]>;
  const declared = new Map<string, string[][]>();
  for (const name of Object.values(MAPS).flat()) {
    if (name === "NetAnnotations") continue;
    for (const [kind, shapes] of maps.get(name) ?? []) {
      expect(declared.has(kind), `${kind} declared twice`).toBe(false);
      // A recorded event carries its annotations after its hashed fields.
      const extra = annotations.get(kind)?.[0] ?? [];
      declared.set(
        kind,
        shapes.map((fields) => [...fields, ...extra]),
      );
    }
  }
  return declared;
}

describe("typed trace events", () => {
  const declared = declaredKinds();

  it("declare each kind's fields (the maps are found and read)", () => {
    expect(declared.get("marker.append")?.[0]?.slice(0, 3)).toEqual(["partition", "pid", "epoch"]);
    expect(declared.get("net.drop")).toHaveLength(2);
    expect(declared.get("net.send")?.[0]).toEqual(["conn", "corr", "to", "msg", "detail"]);
    expect(declared.get("script.step")?.[0]).toEqual(["step", "do", "action"]);
  });

  it("cover every event of recorded runs of the built-in scenarios, with exactly the declared fields in order", () => {
    const seen = new Set<string>();
    const wrong = new Set<string>();
    // Two seeds of each built-in scenario, and six more of everything, which draws every fault:
    // 89 of the 90 kinds four seeds of each see, in a third of the time (npm test's budget).
    for (const name of builtinScenarioNames()) {
      const config = runConfigFor(resolveScenario(name));
      for (const seed of name === "everything" ? [0, 1, 2, 3, 4, 5, 6, 7] : [0, 1]) {
        for (const e of runSeed(config, { seed }, { recordTrace: true }).trace ?? []) {
          seen.add(e.kind);
          const fields = Object.keys(e.fields).join(",");
          const shapes = declared.get(e.kind);
          if (!shapes) wrong.add(`${e.kind}: not declared`);
          else if (!shapes.some((s) => s.join(",") === fields))
            wrong.add(`${e.kind}: fields ${fields}, declared ${shapes.map((s) => s.join(",")).join(" or ")}`);
        }
      }
    }
    expect([...wrong].sort()).toEqual([]);
    // The runs must exercise most kinds, or the check above proves little.
    expect(seen.size).toBeGreaterThan(declared.size * 0.7);
  });
});
