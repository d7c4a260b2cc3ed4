import { z } from "zod";
import { kafkaPropertyTable } from "./kafka-names.js";
import { scenarioSchema } from "./schema.js";

/** Where the editor schema lives in the package (scenario files point at it on their first line). */
export const SCENARIO_JSON_SCHEMA_FILE = "schema/scenario.schema.json";

/**
 * The scenario schema as JSON Schema (draft-07) for editors. `io: "input"` describes what an author
 * writes: fields with defaults are optional.
 */
export function scenarioJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(scenarioSchema, { io: "input", target: "draft-07" }) as Record<string, unknown>;
  withKafkaNames(generated);
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

type JsonObject = Record<string, unknown>;

/** The JSON Schema of the map at a location such as "cluster.topics[]" (null: not found). */
function mapAt(root: JsonObject, location: string): JsonObject | null {
  let at: JsonObject | undefined = root;
  for (const word of location.split(".")) {
    const list = word.endsWith("[]");
    at = (at?.properties as Record<string, JsonObject> | undefined)?.[list ? word.slice(0, -2) : word];
    if (list) at = at?.items as JsonObject | undefined;
  }
  return at ?? null;
}

/** Kafka's property names beside the fields that model them, so that an editor accepts what the loader does. */
function withKafkaNames(root: JsonObject): void {
  for (const [location, names] of Object.entries(kafkaPropertyTable())) {
    const map = mapAt(root, location);
    const properties = map?.properties as Record<string, JsonObject> | undefined;
    if (!properties) throw new Error(`internal: no map at ${location} in the scenario JSON Schema`);
    for (const [kafkaName, field] of Object.entries(names)) {
      const { default: _, ...shape } = properties[field] ?? {};
      properties[kafkaName] = { ...shape, description: `Kafka's name of ${field} (one of the two, not both)` };
    }
  }
}
