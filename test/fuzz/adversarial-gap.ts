import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_SCENARIO_DIR, type LoadedScenario, parseScenario } from "../../src/scenario/loader.js";

/**
 * kip-1228-gap as it was before the TCP network model became the default: the adversarial network
 * that also duplicates messages (0.002 on every link, 0.01 on marker requests). The coverage
 * strategy's late-copy finder writes network duplicates, so its tests run here.
 */
export function adversarialGap(): LoadedScenario {
  return parseScenario(adversarialGapYaml(), "kip-1228-gap-adversarial.yaml");
}

/** The YAML text of adversarialGap (for the CLI's tests, which run scenario files). */
export function adversarialGapYaml(): string {
  const text = readFileSync(join(BUILTIN_SCENARIO_DIR, "kip-1228-gap.yaml"), "utf8");
  const adversarial = text
    .replace("name: kip-1228-gap\n", "name: kip-1228-gap-adversarial\n")
    .replace("  network:\n", "  network:\n    model: adversarial\n    duplicate: 0.002\n")
    .replace("  markerRequests:\n", "  markerRequests:\n    duplicate: 0.01\n");
  if (!adversarial.includes("model: adversarial") || !adversarial.includes("duplicate: 0.01"))
    throw new Error("kip-1228-gap.yaml no longer has the layout adversarialGap edits");
  return adversarial;
}
