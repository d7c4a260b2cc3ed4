import type { Argv } from "yargs";
import { serversOf } from "../../fuzz/seeds/failure-traces.js";
import { runConfigFor } from "../../fuzz/campaign/campaign.js";
import { type ReplayResult, replaySeed } from "../../fuzz/seeds/replay.js";
import { type LoadedSeedFile, readSeedFile } from "../../fuzz/seeds/seed-file.js";
import type { ReleaseFlags } from "../../kafka/release.js";
import { renderStory } from "../../oracle/story.js";
import type { ReplayView } from "../../report/html/page.js";
import type { OutputError } from "../../common/output-error.js";
import { attemptWrite, writeReplayHtml } from "../../report/report-dir.js";
import { type EventRange, renderReplay } from "../../report/replay-render.js";
import { fitted } from "../../report/terminal-width.js";
import { InputError } from "../../common/input-error.js";
import { applySettings, parseSettings } from "../../scenario/settings.js";
import { setOption } from "./search-args.js";
import { EXIT, reportOutputProblems } from "../errors.js";

export interface ReplayArgs {
  file: string;
  set?: string[];
  trace: boolean;
  "from-event"?: number;
  "to-event"?: number;
  json: boolean;
  "accept-changed-trace": boolean;
  html?: string;
}

export function replayBuilder(y: Argv): Argv<ReplayArgs> {
  return setOption(y)
    .positional("file", {
      type: "string",
      demandOption: true,
      describe: "a seed file (written by run --save-failures)",
    })
    .option("trace", { type: "boolean", default: false, describe: "print the event list, one column per node" })
    .option("from-event", { type: "number", describe: "first event of the trace to print" })
    .option("to-event", { type: "number", describe: "last event of the trace to print" })
    .option("json", { type: "boolean", default: false, describe: "print one JSON object on stdout and nothing else" })
    .option("accept-changed-trace", {
      type: "boolean",
      default: false,
      describe: "exit 0 when the violation reproduces though the trace hash changed",
    })
    .option("html", {
      type: "string",
      describe: "also write a self-contained HTML page (space-time diagram, fault bands, step slider) to this file",
    }) as unknown as Argv<ReplayArgs>;
}

function eventIndex(flag: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0)
    throw new InputError(
      `--${flag}`,
      "",
      `expected an event index (an integer >= 0), found ${Number.isNaN(value) ? "not a number" : value}`,
    );
  return value;
}

/** The event range to print, or null when no trace was asked for (--from-event/--to-event imply --trace). */
function traceRange(args: ReplayArgs, events: number): EventRange | null {
  const from = eventIndex("from-event", args["from-event"]);
  const to = eventIndex("to-event", args["to-event"]);
  if (!args.trace && from === undefined && to === undefined) return null;
  const range = { from: from ?? 0, to: Math.min(to ?? events - 1, events - 1) };
  if (range.from > range.to)
    throw new InputError(
      "--from-event",
      "",
      `expected an event range within 0..${events - 1} with from <= to, found ${range.from}..${to ?? range.to}`,
    );
  return range;
}

/** Exit 0 when the seed reproduces as recorded (or its trace changed and that is accepted), else 1. */
export function replayExitCode(r: ReplayResult, acceptChangedTrace: boolean): number {
  if (r.status === "reproduced") return EXIT.ok;
  if (r.status === "trace-changed" && acceptChangedTrace) return EXIT.ok;
  return EXIT.unexpected;
}

/** `eosfuzz replay FILE`: re-run a saved seed, check its trace hash, explain it. */
export function replayCommand(args: ReplayArgs): number {
  eventIndex("from-event", args["from-event"]);
  eventIndex("to-event", args["to-event"]);
  if (args.html === "") throw new InputError("--html", "", "expected a file name for the HTML page, found nothing");
  const settings = parseSettings(args.set);
  const read = readSeedFile(args.file);
  const loaded = { ...read, scenario: applySettings(read.scenario, settings) };
  const result = replaySeed(loaded);
  const range = traceRange(args, result.trace.length);
  const problems: OutputError[] = [];
  const html = args.html
    ? attemptWrite(problems, () => writeReplayHtml(args.html as string, replayView(loaded, result)))
    : false;
  if (args.json) {
    const { trace, ...rest } = result;
    const out = range ? { ...rest, trace: trace.slice(range.from, range.to + 1) } : rest;
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } else {
    process.stdout.write(fitted(`${renderReplay(result, { trace: range })}\n`));
    const first = result.violations[0];
    if (first)
      process.stdout.write(
        fitted(
          `\n  the story (numbered protocol steps)\n${renderStory(result.trace, first)
            .map((l) => `    ${l}`)
            .join("\n")}\n`,
        ),
      );
    if (html) process.stdout.write(`\n  page: ${args.html}\n`);
  }
  reportOutputProblems(problems);
  if (problems.length > 0) return EXIT.usage;
  return replayExitCode(result, args["accept-changed-trace"]);
}

/** What the HTML page of a replay needs: the replayed trace, the cluster's servers, the command. */
function replayView(loaded: LoadedSeedFile, r: ReplayResult): ReplayView {
  const config = runConfigFor(loaded.scenario, loaded.seedFile.overrides as Partial<ReleaseFlags>);
  return {
    trace: {
      scenario: r.scenario,
      seed: r.seed,
      traceHash: r.traceHash,
      recordedTraceHash: r.recordedTraceHash,
      events: r.trace,
      eventCount: r.events,
      violations: r.violations,
      servers: serversOf(config),
    },
    violation: r.violations[0] ?? null,
    replayCommand: `eosfuzz replay ${loaded.file}`,
  };
}
