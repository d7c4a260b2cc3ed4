// npm run docs:flags: rewrites docs/model/releases.md's flags table (every flag of src/kafka/release-flags.ts, its
// value in each release profile) from the model itself, keeping each row's description. A flag
// without a row gets its doc comment's first sentences; test/cli/flags-table.test.ts fails when the
// table is not what this would write.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { flagsTable } from "../test/cli/flags-table.js";

const file = join(import.meta.dirname, "..", "docs", "model", "releases.md");
const before = readFileSync(file, "utf8");
const after = flagsTable(before, readFileSync(join(import.meta.dirname, "..", "src", "kafka", "release-flags.ts"), "utf8"));
if (after !== before) writeFileSync(file, after);
process.stdout.write(after === before ? "docs/model/releases.md: flags table already current\n" : "docs/model/releases.md: flags table rewritten\n");
