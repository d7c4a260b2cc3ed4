import { existsSync } from "node:fs";
import { z } from "zod";
import { parseStateKey } from "../../oracle/protocol-coverage.js";
import { parseJsonInput, jsonOffsetOf, lineColOf } from "../../scenario/json-positions.js";
import { describeFound, InputError } from "../../common/input-error.js";
import { readInputFile } from "../../common/read-input.js";
import { type Locator, validationError } from "../../scenario/loader.js";
import { MAX_TAPE_LENGTH, tapeLength } from "../../sim/choice-tape.js";
import { writeFileAtomic } from "../../common/write-files.js";
import { TOOL_NAME, TOOL_VERSION } from "../../version.js";

/**
 * A coverage corpus file (`run --strategy coverage --corpus FILE`): the tapes a coverage campaign
 * kept, with the abstract states each reached and where on the tape each began, so that the next
 * campaign on the same scenario starts from them instead of from nothing (what AFL's and libFuzzer's
 * corpus directories do across nightly runs). It names the scenario by its content hash (and the
 * flag overrides of a mutant): a tape means nothing under another scenario.
 */
export const CORPUS_FILE_FORMAT = "eosfuzz-corpus";
/** Version 2 adds the late-copy targets not aimed at yet and what aiming at each group paid (version 1 files still read). */
export const CORPUS_FILE_VERSION = 2;

/** At most this many tapes are carried to the next campaign (the most novel ones). */
export const MAX_SAVED_ENTRIES = 200;
/** At most this many late-copy targets not aimed at yet are carried (with their runs' tapes). */
export const MAX_SAVED_TARGETS = 32;
const MAX_SAVED_GROUPS = 100;
const MAX_CORPUS_FILE_BYTES = 200_000_000;

const positions = z.record(z.string().min(1).max(300), z.int().min(0).max(MAX_TAPE_LENGTH));

/** A coverage point as the file keeps it: its state by key (read back, the key's state joins it). */
const savedPoint = z
  .strictObject({
    key: z.string().min(1).max(1_000),
    count: z.int().min(1),
    from: positions.nullable(),
    link: z.strictObject({ from: z.string().min(1).max(200), to: z.string().min(1).max(200) }).nullable(),
  })
  .transform((point, ctx) => {
    const state = parseStateKey(point.key);
    if (state !== null) return { state, ...point };
    ctx.addIssue({
      code: "custom",
      path: ["key"],
      message: "expected the key of a protocol state (as run.json spells it)",
    });
    return z.NEVER;
  });

const savedEntry = z.strictObject({
  /** The fault mix the tape ran under (its "swarm" stream). */
  mix: z.array(z.int().min(0).max(1_000)).max(1_000),
  tape: z
    .record(z.string().min(1).max(300), z.array(z.int().min(0).max(2_147_483_647)).max(MAX_TAPE_LENGTH))
    .refine((t) => tapeLength(t) <= MAX_TAPE_LENGTH, { message: `expected at most ${MAX_TAPE_LENGTH} choices in all` }),
  points: z.array(savedPoint).max(10_000),
});

const tapeSchema = savedEntry.shape.tape;

const linkFaults = z.strictObject({
  delay: z.strictObject({
    minMs: z.int().min(0),
    maxMs: z.int().min(0),
    slowPpm: z.int().min(0).max(1_000_000),
    slowMinMs: z.int().min(0),
    slowMaxMs: z.int().min(0),
  }),
  dropPpm: z.int().min(0).max(1_000_000),
  duplicatePpm: z.int().min(0).max(1_000_000),
  reorderPpm: z.int().min(0).max(1_000_000),
  model: z.enum(["adversarial", "tcp"]).optional(),
});

/**
 * A late-copy target (late-copy-finder.ts) of a kept run. Its faults only say how to read and
 * rewrite the choices; the aimed run replays under the scenario's own links, so a damaged target
 * can make a useless run but never one the scenario's faults could not make.
 */
const savedTarget = z.strictObject({
  stream: z.string().min(1).max(300),
  at: z.int().min(0).max(MAX_TAPE_LENGTH),
  faults: linkFaults,
  delayMs: z.int().min(0),
  release: z.string().min(1).max(100),
  wire: z.string().min(1).max(100),
  how: z.enum(["duplicate", "first-copy"]),
});

/** A run's tape and its targets not aimed at yet. */
const savedAim = z.strictObject({ tape: tapeSchema, targets: z.array(savedTarget).min(1).max(MAX_SAVED_TARGETS) });

/** What aiming at one group of targets (a late copy at a leader of a release, over a wire) paid so far. */
const savedGroup = z
  .strictObject({
    release: z.string().min(1).max(100),
    wire: z.string().min(1).max(100),
    aimed: z.int().min(0),
    paid: z.int().min(0),
  })
  .refine((g) => g.paid <= g.aimed, { message: "expected paid <= aimed" });

const corpusFileSchema = z.strictObject({
  format: z.literal(CORPUS_FILE_FORMAT),
  formatVersion: z.union([z.literal(1), z.literal(CORPUS_FILE_VERSION)]),
  tool: z.strictObject({ name: z.string().max(100), version: z.string().max(100) }),
  scenario: z.strictObject({
    name: z.string().max(100),
    contentHash: z.string().regex(/^[0-9a-f]{16}$/),
    overrides: z.string().max(10_000),
  }),
  entries: z.array(savedEntry).max(MAX_SAVED_ENTRIES),
  aims: z.array(savedAim).max(MAX_SAVED_TARGETS).optional(),
  aimGroups: z.array(savedGroup).max(MAX_SAVED_GROUPS).optional(),
});

/** A kept tape as the corpus holds it: its points with their states (the file spells them by key alone: fileForm). */
export type SavedEntry = z.output<typeof savedEntry>;
export type SavedAim = z.output<typeof savedAim>;
export type SavedGroup = z.output<typeof savedGroup>;

/** What a corpus file carries from one campaign to the next. */
export interface SavedCorpus {
  entries: SavedEntry[];
  /** Late-copy targets not aimed at yet, with their runs' tapes (most promising first). */
  aims: SavedAim[];
  /** What aiming at each group paid in the campaigns so far. */
  groups: SavedGroup[];
}

export const EMPTY_CORPUS: SavedCorpus = { entries: [], aims: [], groups: [] };

/** An entry as the file spells it: its points by key alone (the form older files have too). */
function fileForm(entry: SavedEntry): z.input<typeof savedEntry> {
  return {
    mix: entry.mix,
    tape: entry.tape,
    points: entry.points.map(({ key, count, from, link }) => ({ key, count, from, link })),
  };
}

/** What a corpus belongs to: the scenario as loaded now, and a mutant's flag overrides (canonical JSON). */
export interface CorpusOwner {
  name: string;
  contentHash: string;
  overrides: string;
}

/** Where a coverage campaign starts from and leaves its corpus. */
export interface CorpusStore {
  readonly file: string;
  load(): SavedCorpus;
  save(corpus: SavedCorpus): void;
}

/** A corpus kept in one JSON file: missing means empty (the first campaign creates it). */
export function corpusFile(file: string, owner: CorpusOwner): CorpusStore {
  return {
    file,
    load: () =>
      existsSync(file)
        ? parseCorpusFile(readInputFile(file, MAX_CORPUS_FILE_BYTES, "a corpus file"), file, owner)
        : EMPTY_CORPUS,
    // One line, not indented: a tape is thousands of small numbers.
    save: ({ entries, aims, groups }) => {
      // The reader refuses more (the schema's bound): never write a file this tool cannot read back.
      if (entries.length > MAX_SAVED_ENTRIES)
        throw new Error(`corpus: ${entries.length} entries to save, at most ${MAX_SAVED_ENTRIES}`);
      const targets = aims.reduce((n, a) => n + a.targets.length, 0);
      if (targets > MAX_SAVED_TARGETS || groups.length > MAX_SAVED_GROUPS)
        throw new Error(
          `corpus: ${targets} targets and ${groups.length} groups to save, at most ${MAX_SAVED_TARGETS} and ${MAX_SAVED_GROUPS}`,
        );
      const content = {
        format: CORPUS_FILE_FORMAT,
        formatVersion: CORPUS_FILE_VERSION,
        tool: { name: TOOL_NAME, version: TOOL_VERSION },
        scenario: owner,
        entries: entries.map(fileForm),
        aims,
        aimGroups: groups,
      };
      writeFileAtomic(file, `${JSON.stringify(content)}\n`, "the corpus file");
    },
  };
}

function ownerText(o: CorpusOwner): string {
  return `${o.name} ${o.contentHash}${o.overrides === "{}" ? "" : ` with overrides ${o.overrides}`}`;
}

/** Parse and check a corpus file; any problem is one InputError line (exit 2), and the file is left as it is. */
export function parseCorpusFile(text: string, file: string, owner: CorpusOwner): SavedCorpus {
  const data = parseJsonInput(text, file, "a complete JSON corpus file");
  const format = (data as { format?: unknown } | null)?.format;
  if (data === null || typeof data !== "object" || Array.isArray(data) || format !== CORPUS_FILE_FORMAT) {
    throw new InputError(
      file,
      "format",
      `expected "${CORPUS_FILE_FORMAT}" (an eosfuzz coverage corpus), found ${describeFound(format ?? null)}`,
      { line: 1, col: 1 },
    );
  }
  const parsed = corpusFileSchema.safeParse(data);
  const locate: Locator = (path, unknownKey) => lineColOf(text, jsonOffsetOf(text, path, unknownKey));
  if (!parsed.success) throw validationError(file, data, parsed.error.issues, locate);
  const { scenario, entries, aims = [], aimGroups = [] } = parsed.data;
  if (scenario.contentHash !== owner.contentHash || scenario.overrides !== owner.overrides) {
    throw new InputError(
      file,
      "scenario",
      `expected a corpus of ${ownerText(owner)} (the scenario as loaded now), found one of ${ownerText(scenario)}: its tapes mean nothing here (give another --corpus file)`,
      locate(["scenario"]),
    );
  }
  if (aims.reduce((n, a) => n + a.targets.length, 0) > MAX_SAVED_TARGETS)
    throw new InputError(file, "aims", `expected at most ${MAX_SAVED_TARGETS} targets in all`, locate(["aims"]));
  return { entries, aims, groups: aimGroups };
}
