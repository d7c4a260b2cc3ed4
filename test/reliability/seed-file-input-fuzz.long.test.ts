import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replaySeed } from "../../src/fuzz/seeds/replay.js";
import { parseSeedFile } from "../../src/fuzz/seeds/seed-file.js";
import {
  acceptedOrCleanlyRejected,
  applyEdits,
  edit,
  expectCleanInputError,
  FUZZ_RUNS,
  FUZZ_SEED,
  type Json,
  pathsOf,
  textDamage,
  thrownBy,
  weirdValue,
} from "./input-fuzz-helpers.js";

/**
 * Issue 9: bad seed files never crash the tool. 2,000 generated files per property go through the
 * reader `eosfuzz replay`, `shrink` and `regress` use: each is accepted (and then replays to one of
 * its three statuses) or rejected with one clean line naming the file, the field and what was expected.
 */

const FILE = "fuzzed.seed.json";
const SEED_DIR = join(import.meta.dirname, "../../seeds");
const texts = readdirSync(SEED_DIR)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => readFileSync(join(SEED_DIR, f), "utf8"));
// Small ones first: random edits use the smaller half (a long tape only makes parsing slower).
const bases = texts
  .map((t) => JSON.parse(t) as Json)
  .sort((a, b) => JSON.stringify(a).length - JSON.stringify(b).length);
const smallBases = bases.slice(0, Math.ceil(bases.length / 2));

/**
 * Replaying costs a whole run: every REPLAY_EVERY-th accepted file is replayed (the others only
 * parsed), which keeps the property within seconds while still replaying a few dozen odd files.
 */
const REPLAY_EVERY = 8;
let acceptedSoFar = 0;

function checkSeedText(text: string): "accepted" | "rejected" {
  const loaded = acceptedOrCleanlyRejected(() => parseSeedFile(text, FILE), FILE);
  if (loaded === null) return "rejected";
  if (acceptedSoFar++ % REPLAY_EVERY === 0) {
    const replayed = replaySeed(loaded);
    expect(["reproduced", "trace-changed", "diverged"]).toContain(replayed.status);
  }
  return "accepted";
}

type Doc = Record<string, Json> & { scenario: Record<string, Json>; tape: Record<string, Json> };

describe("fuzzed seed files (2,000 each): accepted and replayable, or one clean line", () => {
  it("saved seed files with random fields replaced, removed or added", () => {
    const outcomes = { accepted: 0, rejected: 0 };
    fc.assert(
      fc.property(
        fc.nat({ max: smallBases.length - 1 }),
        fc.array(edit, { minLength: 1, maxLength: 3 }),
        (which, edits) => {
          outcomes[checkSeedText(JSON.stringify(applyEdits(smallBases[which] as Json, edits), null, 2))]++;
        },
      ),
      { seed: FUZZ_SEED, numRuns: FUZZ_RUNS },
    );
    expect(outcomes.rejected).toBeGreaterThan(FUZZ_RUNS / 2);
    expect(outcomes.accepted).toBeGreaterThan(10);
  });

  it("truncated, spliced and binary files", () => {
    fc.assert(
      fc.property(fc.constantFrom(...texts).chain(textDamage), (text) => {
        checkSeedText(text);
      }),
      { seed: FUZZ_SEED, numRuns: FUZZ_RUNS },
    );
  });

  it("a wrong format version, a tape of the wrong type, a scenario hash that does not match: always rejected, naming the field", () => {
    const tapeOfWrongType = fc.oneof(
      weirdValue.filter((v) => v === null || typeof v !== "object" || Array.isArray(v)),
      fc
        .record({ stream: fc.constantFrom("workload:start", "", "x".repeat(400)), value: weirdValue })
        .filter(
          ({ stream, value }) =>
            stream !== "workload:start" ||
            !(
              Array.isArray(value) &&
              value.every((x) => Number.isInteger(x) && (x as number) >= 0 && (x as number) < 2 ** 31)
            ),
        )
        .map(({ stream, value }) => ({ [stream]: value })),
      fc
        .array(fc.oneof(fc.constantFrom(-1, 0.5, 2 ** 31, "1", null, true), fc.constant([] as Json)), {
          minLength: 1,
          maxLength: 4,
        })
        .map((values) => ({ "workload:start": [0, ...values] })),
    );
    const broken = fc.oneof(
      weirdValue.filter((v) => v !== 1).map((v) => ["formatVersion", (d: Doc) => void (d.formatVersion = v)] as const),
      tapeOfWrongType.map((v) => ["tape", (d: Doc) => void (d.tape = v as Record<string, Json>)] as const),
      fc
        .stringMatching(/^[0-9a-f]{16}$/)
        .map((h) => ["scenario.contentHash", (d: Doc) => void (d.scenario.contentHash = h)] as const),
      fc.nat().map(
        (pick) =>
          [
            "scenario.contentHash",
            (d: Doc) => {
              // Edit a number of the inline scenario by one, as a hand edit would, and leave the hash alone.
              const definition = d.scenario.definition as Json;
              const numbers = pathsOf(definition).filter(
                (p) =>
                  typeof p.reduce<Json>((v, k) => (v as Record<string | number, Json>)[k] as Json, definition) ===
                  "number",
              );
              const path = numbers[pick % numbers.length] as (string | number)[];
              const parent = path
                .slice(0, -1)
                .reduce<Json>((v, k) => (v as Record<string | number, Json>)[k] as Json, definition) as Record<
                string | number,
                Json
              >;
              const key = path[path.length - 1] as string | number;
              parent[key] = (parent[key] as number) === 0 ? 1 : (parent[key] as number) - 1;
            },
          ] as const,
      ),
    );
    fc.assert(
      fc.property(fc.nat({ max: bases.length - 1 }), broken, (which, [field, mutate]) => {
        const doc = structuredClone(bases[which]) as Doc;
        mutate(doc);
        const error = thrownBy(() => parseSeedFile(JSON.stringify(doc, null, 2), FILE));
        expectCleanInputError(error, FILE);
        // A bad hash may also be reported as a bad definition (an edit that breaks the scenario's schema).
        const named =
          error.field === field || error.field.startsWith(`${field}.`) || error.field.startsWith(`${field}[`);
        expect(
          named || (field === "scenario.contentHash" && error.field.startsWith("scenario.definition")),
          error.message,
        ).toBe(true);
      }),
      { seed: FUZZ_SEED, numRuns: FUZZ_RUNS },
    );
  });
});
