import yargs, { type Argv } from "yargs";
import { MUTANTS } from "../../fuzz/catalogue/mutants.js";
import { PCT_SCOPES } from "../../fuzz/run-shaping/pct.js";
import { STRATEGY_NAMES } from "../../fuzz/campaign/strategy-names.js";
import { builtinScenarioNames } from "../../scenario/loader.js";
import { InputError } from "../../common/input-error.js";
import { EXIT } from "../errors.js";

/** A command as completion sees it: its name and the options its builder declares. */
export interface CompletableCommand {
  name: string;
  builder: (y: Argv) => Argv<unknown>;
}

export interface CompletionArgs {
  shell?: string;
}

export function completionBuilder(y: Argv): Argv<CompletionArgs> {
  return y.positional("shell", {
    type: "string",
    describe: "bash (default) or zsh",
  }) as unknown as Argv<CompletionArgs>;
}

/**
 * The completion script: bash calls `eosfuzz __complete WORD...` for the words typed so far and
 * offers what it prints; zsh runs the same function through bashcompinit. Where nothing is offered
 * (a file argument, a path after --scenario), the shell completes file names.
 */
export function completionScript(shell: "bash" | "zsh"): string {
  const zsh = shell === "zsh" ? "autoload -U +X bashcompinit && bashcompinit\n" : "";
  return `###-begin-eosfuzz-completions-###
# Completion of eosfuzz's commands, options and scenario names. Install with
#   eosfuzz completion ${shell} >> ~/.${shell === "zsh" ? "zshrc" : "bashrc"}
${zsh}_eosfuzz_completions() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  local IFS=$'\\n'
  COMPREPLY=($(compgen -W "$(eosfuzz __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)" -- "$cur"))
}
complete -o bashdefault -o default -F _eosfuzz_completions eosfuzz
###-end-eosfuzz-completions-###
`;
}

/** `eosfuzz completion [bash|zsh]`: print the completion script. */
export function completionCommand(args: CompletionArgs): number {
  const shell = args.shell ?? "bash";
  if (shell !== "bash" && shell !== "zsh")
    throw new InputError("eosfuzz completion", "SHELL", `expected bash or zsh, found ${JSON.stringify(shell)}`);
  process.stdout.write(completionScript(shell));
  return EXIT.ok;
}

/** The long options a command's builder declares. */
function optionsOf(command: CompletableCommand): string[] {
  const parser = command.builder(yargs([]));
  const keys = (parser as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key;
  const names = Object.keys(keys).filter((k) => k.length > 1 && !/[A-Z_$]/.test(k) && k !== "version");
  return [...new Set([...names, "help", "color", "no-color"])].map((k) => `--${k}`);
}

/** The values an option takes, when they are a closed list (null: a number, a path: the shell's own). */
function valuesOf(option: string): readonly string[] | null {
  switch (option) {
    case "--scenario":
      return builtinScenarioNames();
    case "--mutant":
      return MUTANTS.map((m) => m.name);
    case "--strategy":
      return STRATEGY_NAMES;
    case "--pct-scope":
      return PCT_SCOPES;
    default:
      return null;
  }
}

/**
 * What may come next on `eosfuzz WORDS...` (the last word is the one being typed): commands,
 * a command's options, or the values of the option before it. The shell keeps those that start
 * with what is typed.
 */
export function completions(words: readonly string[], commands: readonly CompletableCommand[]): string[] {
  const current = words[words.length - 1] ?? "";
  const before = words.slice(0, -1);
  const command = commands.find((c) => c.name === before[0]);
  if (!command) return current.startsWith("-") ? ["--help", "--version"] : commands.map((c) => c.name);
  const previous = before[before.length - 1] ?? "";
  if (previous.startsWith("--") && before.length > 1) {
    const values = valuesOf(previous);
    // A path is the shell's to complete; a scenario name is offered until a path is typed.
    if (values) return /[/.]/.test(current) ? [] : [...values];
  }
  if (current.startsWith("-")) return optionsOf(command);
  if (command.name === "completion") return ["bash", "zsh"];
  return [];
}
