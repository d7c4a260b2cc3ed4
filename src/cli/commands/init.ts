import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Argv } from "yargs";
import { writeFileAtomic } from "../../common/write-files.js";
import { InputError } from "../../common/input-error.js";
import { EXIT } from "../errors.js";

export interface InitArgs {
  name?: string;
  force: boolean;
}

export function initBuilder(y: Argv): Argv<InitArgs> {
  return y
    .positional("name", {
      type: "string",
      describe:
        "the scenario's name (lower case letters, digits, dots, dashes), written to NAME.yaml; or a file path ending in .yaml or .yml, the name taken from the file's",
    })
    .option("force", {
      type: "boolean",
      default: false,
      describe: "overwrite NAME.yaml if it exists",
    }) as unknown as Argv<InitArgs>;
}

const DEFAULT_NAME = "my-scenario";

/** The package's own files (templates/, schema/), next to dist/ (or src/ when run from the sources). */
const PACKAGE_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The starter scenario `eosfuzz init` writes: one YAML file, with {{name}}, {{file}} and {{schema}} to fill in. */
export const STARTER_TEMPLATE = `${PACKAGE_ROOT}templates${sep}starter-scenario.yaml`;
const SCENARIO_SCHEMA = `${PACKAGE_ROOT}schema${sep}scenario.schema.json`;

/** The starter scenario for `name`, to be written at `file` (its schema line points at the package's schema). */
export function starterScenario(name: string, file: string): string {
  const schema = relative(dirname(resolve(file)), SCENARIO_SCHEMA)
    .split(sep)
    .join("/");
  return readFileSync(STARTER_TEMPLATE, "utf8")
    .replaceAll("{{name}}", name)
    .replaceAll("{{file}}", file)
    .replaceAll("{{schema}}", schema.startsWith(".") ? schema : `./${schema}`);
}

/**
 * The file and the scenario name of `init`'s argument: a name (our-cluster -> our-cluster.yaml in
 * this directory) or a path (eos/our-cluster.yaml, named after its file).
 */
export function initTarget(given: string): { file: string; name: string } {
  const isPath = /\.ya?ml$/i.test(given) || /[/\\]/.test(given);
  const file = isPath ? (/\.ya?ml$/i.test(given) ? given : `${given}.yaml`) : `${given}.yaml`;
  const name = isPath ? basename(file).replace(/\.ya?ml$/i, "") : given;
  if (!/^[a-z0-9][a-z0-9.-]{0,63}$/.test(name))
    throw new InputError(
      "eosfuzz init",
      "NAME",
      isPath
        ? `expected a file whose name (before .yaml) is a scenario name of lower case letters, digits, dots and dashes, found ${JSON.stringify(basename(file))}`
        : `expected a scenario name of lower case letters, digits, dots and dashes (it names NAME.yaml), or a file path ending in .yaml, found ${JSON.stringify(given)}`,
    );
  return { file, name };
}

/** `eosfuzz init [NAME|FILE]`: write a commented starter scenario, NAME.yaml in this directory or FILE. */
export function initCommand(args: InitArgs): number {
  const { file, name } = initTarget(args.name ?? DEFAULT_NAME);
  if (existsSync(file) && !args.force)
    throw new InputError(
      file,
      "",
      "expected no such file (eosfuzz init does not overwrite one without --force), found one",
    );
  writeFileAtomic(file, starterScenario(name, file), "the starter scenario");
  process.stdout.write(
    `wrote ${file}: edit it, check it with eosfuzz validate ${file}, run it with eosfuzz run --scenario ${file}\n`,
  );
  return EXIT.ok;
}
