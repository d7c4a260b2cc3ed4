import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FLAG_NAMES } from "../../src/kafka/release.js";
import { flagsTable } from "./flags-table.js";

const model = readFileSync(new URL("../../docs/model/releases.md", import.meta.url), "utf8");
const release = readFileSync(new URL("../../src/kafka/release-flags.ts", import.meta.url), "utf8");

describe("docs/model/releases.md's flags table", () => {
  it("is what the model says: every flag, its value in every release profile (npm run docs:flags rewrites it)", () => {
    expect(flagsTable(model, release)).toBe(model);
  });

  it("would notice a wrong value: a table with one cell flipped is rewritten", () => {
    const flag = FLAG_NAMES.find((f) => model.includes(`| \`${f}\` |`)) as string;
    const row = model.split("\n").find((l) => l.startsWith(`| \`${flag}\` |`)) as string;
    const flipped = row.endsWith("| on |") ? `${row.slice(0, -5)}| off |` : `${row.slice(0, -6)}| on |`;
    expect(flagsTable(model.replace(row, flipped), release)).toBe(model);
  });
});
