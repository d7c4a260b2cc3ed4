import { z } from "zod";
import { STRATEGY_NAMES } from "../fuzz/campaign/strategy-names.js";
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
  coordinatorBroker: z.string().optional().describe("for a marker: the broker whose coordinator sent it"),
  coordinatorRelease: z.string().optional().describe("for a marker: that broker's release when it sent it"),
  markerVersion: z.int().min(0).optional().describe("for a marker: the WriteTxnMarkers request version (1 or 2)"),
  leaderEpoch: z.int().optional().describe("for a marker: the partition's leader epoch where it was judged"),
  expectedBy: z
    .string()
    .optional()
    .describe("a generic scenario's draw (draw: everything): why Kafka itself shows this kind there"),
  replay: z.string().describe("the command that reproduces this seed"),
  unexpected: z.boolean().describe("not allowed by the scenario's expectation"),
  tape: z
    .record(z.string(), z.array(z.int().min(0)))
    .optional()
    .describe("tape strategies (coverage, exhaustive): the run's choice tape, on the first violation of each run"),
});

const pointTallySchema = { seeds: z.int().min(0), firstSeed: z.int().min(0) };

const strategySchema = z.object({
  name: z.enum(STRATEGY_NAMES),
  summary: z.string().describe("what was searched and what it guarantees, in one line"),
  runShaping: z
    .object({
      swarm: z.boolean().optional(),
      pct: z.object({ depth: z.int(), scope: z.string(), messagesPerRun: z.int(), chains: z.int() }).optional(),
    })
    .optional(),
  pct: z
    .object({
      depth: z.int(),
      scope: z.string(),
      messagesPerRun: z.int(),
      chains: z.int(),
      perRunBound: z.number(),
      missProbabilityBound: z.number(),
    })
    .optional(),
  // aimedRuns (runs aimed at a late marker copy, counted among mutatedRuns) is absent from reports written before it existed.
  coverage: z
    .object({
      corpus: z.int(),
      generations: z.int(),
      freshRuns: z.int(),
      mutatedRuns: z.int(),
      aimedRuns: z.int().optional(),
    })
    .optional(),
  exhaustive: z
    .object({
      exhaustive: z.boolean().describe("true: every schedule within `depth` deviations was covered"),
      depth: z.int(),
      depthCompleted: z.int(),
      schedules: z.int(),
      states: z.int(),
      prunedBranches: z.int(),
      counterexampleDeviations: z.int().nullable(),
    })
    .optional(),
});

const statisticsSchema = z.object({
  signatures: z.array(
    z.object({
      signature: z.string(),
      kind: z.string(),
      brokerRelease: z.string().nullable(),
      seeds: z.int().min(0),
      fractionOfSeeds: z.number(),
      firstSeed: z.int().min(0),
      seedsToFirstHit: z.int().min(1),
      wallMsToFirstHit: z.number().nullable().describe("wall clock (not deterministic)"),
    }),
  ),
  clean: z.object({
    seedsRun: z.int().min(0),
    confidence: z.number(),
    largestMissedPerSeedProbability: z.number(),
    seedsNeeded: z.array(z.object({ perSeedProbability: z.number(), seeds: z.int().min(1) })),
  }),
});

const coverageSchema = z.object({
  reached: z.array(z.object({ point: z.string(), ...pointTallySchema })),
  possible: z.int().min(0),
  neverReached: z.array(z.string()),
  goals: z.array(
    z.object({
      name: z.string(),
      pattern: z.string(),
      minSeeds: z.int().min(1),
      seeds: z.int().min(0),
      firstSeed: z.int().min(0).nullable(),
      reached: z.boolean(),
      possible: z.boolean(),
    }),
  ),
});

const runSizeSchema = z.object({
  events: z.int().min(0),
  traceEvents: z.int().min(0),
  tapeLength: z.int().min(0),
  nonZeroChoices: z.int().min(0),
  faults: z.int().min(0),
  messages: z.int().min(0),
  transactions: z.int().min(0),
  producers: z.int().min(0),
  violations: z.int().min(0),
});

const shrunkSchema = z.object({
  kind: z.string(),
  broker: z.string().nullable(),
  seed: z.int().min(0).nullable().describe("the failing seed that was shrunk"),
  before: runSizeSchema,
  after: runSizeSchema,
  reduction: z
    .object({
      producers: z.tuple([z.int(), z.int()]),
      transactions: z.tuple([z.int(), z.int()]),
      consumers: z.tuple([z.int(), z.int()]),
      singleReplica: z.boolean().describe("every partition cut to one replica (no followers)"),
      seed: z.int().min(0),
      seedsSearched: z.int().min(0),
    })
    .nullable()
    .describe("how the scenario was made smaller before the tape was shrunk (null: not reduced)"),
  runs: z.int().min(0).describe("candidate runs"),
  stoppedBy: z.enum(["fixpoint", "budget"]),
  timeMs: z.number().min(0).describe("wall clock (not deterministic)"),
  traceHash: z.string().regex(/^[0-9a-f]{16}$/),
  tape: z.record(z.string(), z.array(z.int().min(0))).describe("the shrunk choice tape (replays on its own)"),
  violation: z.object({
    summary: z.string(),
    partition: z.string().optional(),
    broker: z.string().optional(),
    transaction: z.string().optional(),
    markerIssuedFor: z.string().optional(),
  }),
  story: z.array(z.string()).describe("the minimal counterexample as numbered protocol steps"),
  deterministic: z.boolean(),
  determinismProblem: z.array(z.string()),
  scenario: z.string(),
  scenarioHash: z.string(),
  savedTo: z.string().nullable(),
});

const checkSchema = z.object({
  clause: z.enum(["find", "nothing-unexpected", "other"]),
  name: z.string(),
  met: z.boolean(),
  detail: z.string(),
});

export const runReportSchema = z
  .object({
    schemaVersion: z
      .int()
      .min(RUN_REPORT_SCHEMA_VERSION)
      .max(RUN_REPORT_SCHEMA_VERSION)
      .describe("the version of this schema"),
    tool: z.object({ name: z.string(), version: z.string() }),
    scenario: z.string(),
    scenarioHash: z.string(),
    scenarioSource: z.string(),
    mutant: z.string().nullable(),
    strategy: strategySchema.optional().describe("how runs were searched (absent in reports of older versions)"),
    shard: z
      .object({
        index: z.int().min(0),
        count: z.int().min(1),
        firstSeed: z.int().min(0).optional().describe("the first seed of the shard's slice"),
        lastSeed: z
          .int()
          .min(0)
          .optional()
          .describe("the last seed of the shard's slice (completedSeeds: those that ran)"),
      })
      .nullable()
      .optional()
      .describe("run --shard I/N: which slice this report covers"),
    seedStart: z.int().min(0),
    seedsPlanned: z.int().min(0).optional().describe("runs the whole campaign planned (--seeds)"),
    seedsRun: z.int().min(0),
    interrupted: z.boolean(),
    completedSeeds: z
      .array(z.tuple([z.int().min(0), z.int().min(0)]))
      .optional()
      .describe(
        "the seeds that ran (run indices for coverage and exhaustive), as sorted inclusive ranges [first, last]; what run --resume continues after",
      ),
    stoppedBy: z
      .enum(["time-budget", "stop-on-first", "done", "interrupted", "counterexample", "schedule-limit"])
      .nullable()
      .optional()
      .describe("why the campaign ended before its planned runs"),
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
      .array(
        z.object({
          index: z.int().min(1),
          action: z.string(),
          note: z.string().nullable(),
          startMs: z.int().min(0),
          endMs: z.int().min(0),
          outcome: z.string(),
          ok: z.boolean(),
          problems: z.array(z.string()),
        }),
      )
      .nullable()
      .describe(
        "scripted scenarios: the step log of the first seed whose script failed, else of the first seed (null for fuzzed scenarios)",
      ),
    statistics: statisticsSchema
      .optional()
      .describe("per violation signature: how often and how soon; for a clean run: what it proves at 95% confidence"),
    coverage: coverageSchema
      .optional()
      .describe("abstract protocol states reached and never reached, and the scenario's coverage goals"),
    modelFailures: z
      .object({ violations: z.int().min(0), seeds: z.array(z.int().min(0)) })
      .optional()
      .describe(
        "failures of eosfuzz's own model (model-error, model-timeout): bugs in the tool, not in Kafka; any fails the run",
      ),
    seedFiles: z.array(z.string()).optional().describe("seed files written by run --save-failures"),
    shrunk: shrunkSchema
      .optional()
      .describe("the run's first failure shrunk to its minimal schedule (absent with --no-shrink or without failures)"),
    determinism: z
      .object({
        checked: z.int().min(0),
        mismatches: z.array(z.object({ seed: z.int().min(0), lines: z.array(z.string()) })),
      })
      .optional()
      .describe("--check-determinism: seeds run a second time, and those whose trace differed"),
    wallMs: z.number().min(0).describe("wall clock (not deterministic)"),
    eventsPerSecond: z.number().min(0).describe("wall clock (not deterministic)"),
    seedsPerSecond: z.number().min(0).describe("wall clock (not deterministic)"),
    startedAt: z.string().describe("wall clock (not deterministic): ISO 8601 start time"),
  })
  .describe(
    "eosfuzz run report (run.json). Every field except the wall-clock ones is a pure function of (scenario, seeds, tool version).",
  );

/** Compile-time check: everything RunReport declares, the schema accepts. */
type Parsed = z.output<typeof runReportSchema>;
const _reportFitsSchema = (r: RunReport): Parsed => r;
void _reportFitsSchema;

/** The JSON Schema file's content (draft-07 for editors and ajv). */
export function runReportJsonSchema(): string {
  return `${JSON.stringify(z.toJSONSchema(runReportSchema, { io: "input", target: "draft-07" }), null, 2)}\n`;
}
