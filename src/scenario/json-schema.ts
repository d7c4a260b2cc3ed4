import { z } from "zod";
import { scenarioSchema } from "./schema.js";

/** Where the editor schema lives in the package (scenario files point at it on their first line). */
export const SCENARIO_JSON_SCHEMA_FILE = "schema/scenario.schema.json";

/**
 * The scenario schema as JSON Schema (draft-07) for editors. `io: "input"` describes what an author
 * writes: fields with defaults are optional.
 */
export function scenarioJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(scenarioSchema, { io: "input", target: "draft-07" }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return {
    $schema,
    $id: "https://eosfuzz.dev/schema/scenario.schema.json",
    title: "eosfuzz scenario",
    description:
      "A cluster, a fuzzed workload or a script of steps, faults, run bounds and the expected outcome. Generated from src/scenario/schema.ts by `npm run schema`; do not edit by hand.",
    ...rest,
  };
}

/** The file's exact text (stable key order, two-space indent, trailing newline). */
export function renderScenarioJsonSchema(): string {
  return `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
}
