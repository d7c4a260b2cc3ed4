/** What a step may name, as the scenario declares it (hold names grow as the steps are checked in order). */
export interface ScriptNames {
  brokers: Set<string>;
  coordinators: Set<string>;
  partitions: Set<string>;
  producers: Set<string>;
  /** Nodes, producers, `coordinator`, `harness` and `reader`: what a hold may match on. */
  nodeRefs: Set<string>;
  /** Names of the hold steps before the step being checked. */
  holds: Set<string>;
}

/** A problem of one step, at a field relative to the step. */
export interface NameProblem {
  field: (string | number)[];
  message: string;
}

/** Collects a step's problems: `need(ok, field, message)` records one unless ok. */
export class NameCheck {
  readonly problems: NameProblem[] = [];

  need(ok: boolean, field: (string | number)[], message: string): void {
    if (!ok) this.problems.push({ field, message });
  }

  /** A name that must be one of `names`. */
  oneOf(names: Set<string>, found: string, field: (string | number)[], kind: string): void {
    this.need(names.has(found), field, oneOf(kind, names, found));
  }
}

export function oneOf(kind: string, names: Iterable<string>, found: string): string {
  return `expected ${kind} (${[...names].join(", ")}), found "${found}"`;
}
