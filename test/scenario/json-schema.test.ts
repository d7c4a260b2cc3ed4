import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { renderScenarioJsonSchema, SCENARIO_JSON_SCHEMA_FILE } from "../../src/scenario/json-schema.js";
import { BUILTIN_SCENARIO_DIR, builtinScenarioNames } from "../../src/scenario/loader.js";
import { parse } from "yaml";

const ROOT = join(import.meta.dirname, "../..");

describe("the editor JSON Schema (schema/scenario.schema.json)", () => {
  const committed = readFileSync(join(ROOT, SCENARIO_JSON_SCHEMA_FILE), "utf8");

  it("is up to date with the zod schema (regenerate with npm run schema)", () => {
    expect(committed).toBe(renderScenarioJsonSchema());
  });

  const validate = new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(committed));

  it.each(builtinScenarioNames())("accepts the built-in scenario %s, which points at it on its first line", (name) => {
    const text = readFileSync(join(BUILTIN_SCENARIO_DIR, `${name}.yaml`), "utf8");
    expect(text.split("\n")[0]).toBe("# yaml-language-server: $schema=../schema/scenario.schema.json");
    const ok = validate(parse(text));
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it("rejects what the zod schema rejects: a typo'd field, a wrong type, an unknown release, an unknown step", () => {
    const base = parse(readFileSync(join(BUILTIN_SCENARIO_DIR, "kip-1228-race.yaml"), "utf8"));
    // biome-ignore lint/suspicious/noExplicitAny: free-form edits of parsed YAML
    const cases: [string, (s: Record<string, any>) => void][] = [
      [
        "typo",
        (s) => {
          s.sceds = 3;
        },
      ],
      [
        "type",
        (s) => {
          s.seeds = "many";
        },
      ],
      [
        "release",
        (s) => {
          s.cluster.brokers[0].release = "4.9";
        },
      ],
      [
        "step",
        (s) => {
          s.script.steps[0].do = "beginTxn";
        },
      ],
      [
        "negative",
        (s) => {
          s.seeds = -1;
        },
      ],
    ];
    for (const [label, mutate] of cases) {
      const copy = structuredClone(base);
      mutate(copy);
      expect(validate(copy), label).toBe(false);
    }
  });
});
