import chalk from "chalk";
import type { Argv } from "yargs";
import { describeExpectation } from "../../report/terminal.js";
import { InputError, problemsOf } from "../../common/input-error.js";
import { loadScenarioFile } from "../../scenario/loader.js";
import { EXIT } from "../errors.js";
import { writeJsonStdout } from "./run.js";

export interface ValidateArgs {
  files: string[];
  json: boolean;
}

export function validateBuilder(y: Argv): Argv<ValidateArgs> {
  return y.positional("files", { type: "string", array: true, describe: "scenario files to check" }).option("json", {
    type: "boolean",
    default: false,
    describe: "print one JSON array on stdout: each file, whether it is valid, and its problems",
  }) as unknown as Argv<ValidateArgs>;
}

interface Checked {
  file: string;
  valid: boolean;
  /** A valid file's scenario: name, seeds and expectation. */
  scenario: { name: string; seeds: number; expectation: string } | null;
  /** An invalid file's problems, one line each. */
  problems: string[];
}

function check(file: string): Checked {
  try {
    const { scenario } = loadScenarioFile(file);
    const summary = { name: scenario.name, seeds: scenario.seeds, expectation: describeExpectation(scenario.expect) };
    return { file, valid: true, scenario: summary, problems: [] };
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { file, valid: false, scenario: null, problems: problemsOf(e).map((p) => p.message) };
  }
}

/**
 * `eosfuzz validate FILE...`: every problem of every scenario file, one line each (as `run` would
 * refuse them), without running anything. Exit 0 when all are valid, 2 when one is not.
 */
export function validateCommand(args: ValidateArgs): number {
  const checked = (args.files ?? []).map(check);
  if (args.json) writeJsonStdout(checked);
  else
    for (const c of checked) {
      if (!c.valid) {
        for (const p of c.problems) process.stdout.write(`${p}\n`);
        continue;
      }
      const s = c.scenario as NonNullable<Checked["scenario"]>;
      process.stdout.write(
        `${c.file}: ${chalk.green("valid")} ${chalk.dim(`(scenario ${s.name}, ${s.seeds} seeds, expect ${s.expectation})`)}\n`,
      );
    }
  return checked.every((c) => c.valid) ? EXIT.ok : EXIT.usage;
}
