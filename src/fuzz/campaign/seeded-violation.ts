import type { Violation } from "../../oracle/violation.js";
import type { Tape } from "../../sim/choice-tape.js";

/** A violation with the seed and trace hash that reproduce it. */
export interface SeededViolation extends Violation {
  /** The seed, or for tape strategies (coverage, exhaustive) the run's position in the campaign. */
  seed: number;
  traceHash: string;
  /** The command that reproduces it (default: the random-strategy replay of the seed). */
  replay?: string;
  /** The run's choice tape, for strategies whose runs are tapes. */
  tape?: Tape;
}
