import { z } from "zod";
import { expectationSchema } from "../scenario/schema.js";
import { RUN_REPORT_SCHEMA_VERSION, type RunReport } from "./run-report.js";

/**
 * The schema of run.json (and of `run --json`), used to validate a report read back by
 * `eosfuzz report` and exported as schema/run-report.schema.json (`npm run schema`). Objects are not
 * strict: other commands and newer versions add fields (coverage, statistics); a reader validates
 * with this schema and keeps the object as read, extra fields included.
 */
const violationSchema = z.object({
  kind: z.string().describe("stable kind name, e.g. stale-marker"),
  seed: z.int().min(0),
  traceHash: z.string().regex(/^[0-9a-f]{16}$/),
  summary: z.string(),
  explanation: z.string().describe("the causal chain: summary line, then one step per line"),
  steps: z.array(z.string()),
  atMs: z.int().min(0).describe("virtual time of the violation"),
  partition: z.string().optional(),
  broker: z.string().optional(),
  brokerRelease: z.string().optional(),
  transaction: z.string().optional(),
  markerIssuedFor: z.string().optional(),
  replay: z.string().describe("the command that reproduces this seed"),
  unexpected: z.boolean().describe("not allowed by the scenario's expectation"),
});

const checkSchema = z.object({ clause: z.enum(["find", "nothing-unexpected", "other"]), name: z.string(), met: z.boolean(), detail: z.string() });

export const runReportSchema = z
  .object({
    schemaVersion: z.int().min(RUN_REPORT_SCHEMA_VERSION).max(RUN_REPORT_SCHEMA_VERSION).describe("the version of this schema"),
    tool: z.object({ name: z.string(), version: z.string() }),
    scenario: z.string(),
    scenarioHash: z.string(),
    scenarioSource: z.string(),
    mutant: z.string().nullable(),
    seedStart: z.int().min(0),
    seedsRun: z.int().min(0),
    interrupted: z.boolean(),
    events: z.int().min(0),
    virtualTimeMs: z.int().min(0),
    expectation: expectationSchema,
    expectationMet: z.boolean(),
    expectationReasons: z.array(z.string()),
    expectationChecks: z.array(checkSchema),
    violationsByKind: z.record(z.string(), z.int().min(0)),
    failingSeeds: z.array(z.int().min(0)),
    violations: z.array(violationSchema).describe("sorted by seed"),
    scriptSteps: z
      .array(z.object({ index: z.int().min(1), action: z.string(), note: z.string().nullable(), startMs: z.int().min(0), endMs: z.int().min(0), outcome: z.string(), ok: z.boolean(), problems: z.array(z.string()) }))
      .nullable()
      .describe("scripted scenarios: the step log of the first seed whose script failed, else of the first seed (null for fuzzed scenarios)"),
    seedFiles: z.array(z.string()).optional().describe("seed files written by run --save-failures"),
    wallMs: z.number().min(0).describe("wall clock (not deterministic)"),
    eventsPerSecond: z.number().min(0).describe("wall clock (not deterministic)"),
    seedsPerSecond: z.number().min(0).describe("wall clock (not deterministic)"),
    startedAt: z.string().describe("wall clock (not deterministic): ISO 8601 start time"),
  })
  .describe("eosfuzz run report (run.json). Every field except the wall-clock ones is a pure function of (scenario, seeds, tool version).");

/** Compile-time check: everything RunReport declares, the schema accepts. */
type Parsed = z.output<typeof runReportSchema>;
const _reportFitsSchema = (r: RunReport): Parsed => r;
void _reportFitsSchema;

/** The JSON Schema file's content (draft-07 for editors and ajv). */
export function runReportJsonSchema(): string {
  return `${JSON.stringify(z.toJSONSchema(runReportSchema, { io: "input", target: "draft-07" }), null, 2)}\n`;
}
