// The `--name value` flags of the bench and maintenance scripts (plain Node, no yargs: they are
// tools for this repository, not part of the CLI's contract).
/** A reader of `--name value` in argv; a missing flag or a flag without a value gives `fallback`. */
export function flagReader(args = process.argv.slice(2)) {
  return (name, fallback) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
  };
}
