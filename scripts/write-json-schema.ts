// Writes schema/scenario.schema.json from the zod schema (npm run schema).
// A test (test/scenario/json-schema.test.ts) fails when the committed file is out of date.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderScenarioJsonSchema, SCENARIO_JSON_SCHEMA_FILE } from "../src/scenario/json-schema.js";

const target = join(import.meta.dirname, "..", SCENARIO_JSON_SCHEMA_FILE);
writeFileSync(target, renderScenarioJsonSchema());
process.stdout.write(`wrote ${SCENARIO_JSON_SCHEMA_FILE}\n`);
