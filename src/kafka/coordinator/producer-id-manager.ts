import { assert, isInt64 } from "../common/assert.js";

/** Hands out producer ids (ProducerIdManager); shared by every coordinator of the cluster. */
export class ProducerIdManager {
  constructor(private next: number) {
    // A producer id is a non-negative long; -1 is NO_PRODUCER_ID, never handed out.
    assert(isInt64(next) && next >= 0, () => `ProducerIdManager: first producer id ${next}`);
  }
  generateProducerId(): number {
    return this.next++;
  }
}
