/** A counter handing out unique ids in order (deterministic: no gaps, no reuse). */
export class IdSequence {
  constructor(private nextId: number) {}

  next(): number {
    return this.nextId++;
  }
}
