// The behaviour fingerprint of the model (src/fuzz/catalogue/behaviour-fingerprint.ts), for checking that a
// refactoring or a performance change changed nothing a user can observe. Prints one digest per
// group and an overall digest; `--out FILE` also writes every line, so two fingerprints can be
// diffed; `--record` rewrites test/fingerprint.json, the digests npm test holds the model to.
//
//   npm run fingerprint [-- --seeds N] [-- --out FILE]      npm run fingerprint:record
import { writeFileSync } from "node:fs";
import { behaviourFingerprint } from "../dist/fuzz/catalogue/behaviour-fingerprint.js";

function argValue(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : fallback;
}

const record = process.argv.includes("--record");
/** The recorded fingerprint is over fewer seeds, so npm test can afford it. */
const RECORDED_SEEDS = 20;
const seeds = Number(argValue("--seeds", record ? String(RECORDED_SEEDS) : "60"));
const out = argValue("--out", "");

const fingerprint = behaviourFingerprint({
  seeds,
  onGroup: (g) => process.stdout.write(`${g.label.padEnd(48)} ${g.digest}\n`),
});
process.stdout.write(`${"overall".padEnd(48)} ${fingerprint.overall}\n`);
if (out) writeFileSync(out, `${fingerprint.groups.flatMap((g) => g.lines).join("\n")}\n`);
if (record) {
  const groups = Object.fromEntries(fingerprint.groups.map((g) => [g.label, g.digest]));
  const file = { seeds, overall: fingerprint.overall, groups };
  writeFileSync(new URL("../test/fingerprint.json", import.meta.url), `${JSON.stringify(file, null, 2)}\n`);
  process.stdout.write("recorded test/fingerprint.json\n");
}
