import { readFileSync } from "node:fs";

/** The tool's version, from package.json (recorded in reports and seed files). */
export const TOOL_VERSION: string = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version?: string };
    return pkg.version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
})();

export const TOOL_NAME = "eosfuzz";
