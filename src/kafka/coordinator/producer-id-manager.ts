/** Hands out producer ids (ProducerIdManager); shared by every coordinator of the cluster. */
export class ProducerIdManager {
  constructor(private next: number) {}
  generateProducerId(): number {
    return this.next++;
  }
}
