import chalk from "chalk";
import type { Argv } from "yargs";
import { describeExpectation } from "../../report/terminal.js";
import { fitted, outputWidth } from "../../report/terminal-width.js";
import { BUILTIN_SCENARIO_DIR, builtinScenarioNames, loadScenarioFile } from "../../scenario/loader.js";
import { EXIT } from "../errors.js";
import { writeJsonStdout } from "./run.js";

export interface ScenariosArgs {
  json: boolean;
}

export function scenariosBuilder(y: Argv): Argv<ScenariosArgs> {
  return y.option("json", {
    type: "boolean",
    default: false,
    describe: "print one JSON array on stdout (name, file, seeds, expectation, description)",
  }) as unknown as Argv<ScenariosArgs>;
}

/** The first sentence of a description, cut to `width` characters. */
export function firstSentence(text: string, width = 100): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const sentence = /^(.*?[.!?])(\s|$)/.exec(flat)?.[1] ?? flat;
  return sentence.length <= width ? sentence : `${sentence.slice(0, width - 3)}...`;
}

/** `eosfuzz scenarios`: the built-in scenarios, one line each. */
export function scenariosCommand(args: ScenariosArgs): number {
  const scenarios = builtinScenarioNames().map((name) => {
    const loaded = loadScenarioFile(`${BUILTIN_SCENARIO_DIR}${name}.yaml`);
    const s = loaded.scenario;
    return {
      name,
      file: loaded.source,
      seeds: s.seeds,
      expectation: describeExpectation(s.expect),
      description: s.description.replace(/\s+/g, " ").trim(),
    };
  });
  if (args.json) {
    writeJsonStdout(scenarios);
    return EXIT.ok;
  }
  const width = Math.max(...scenarios.map((s) => s.name.length));
  // The sentence fills what the terminal leaves beside the name (100 characters in a pipe).
  const room = Math.max(20, (outputWidth() ?? width + 104) - width - 4);
  const lines = scenarios.map((s) => `  ${chalk.yellow(s.name.padEnd(width))}  ${firstSentence(s.description, room)}`);
  process.stdout.write(
    fitted(
      `${chalk.bold(`${scenarios.length} built-in scenarios`)}${chalk.dim("  (eosfuzz run --scenario NAME; their files: eosfuzz scenarios --json)")}\n${lines.join("\n")}\n`,
    ),
  );
  return EXIT.ok;
}
