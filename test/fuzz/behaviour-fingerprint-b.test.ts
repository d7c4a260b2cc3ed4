import { describe, it } from "vitest";
import { checkFingerprintHalf } from "./fingerprint-check.js";

// The second half of the fingerprint's groups (the first, and the checks of the record itself, are
// in behaviour-fingerprint.test.ts): a file of its own so the suite's two workers share the check.
describe("the behaviour fingerprint, second half", () => {
  it("is what test/fingerprint.json records (the groups behaviour-fingerprint.test.ts leaves): a behaviour change updates the record, with its reason", () => {
    checkFingerprintHalf(1);
  });
});
