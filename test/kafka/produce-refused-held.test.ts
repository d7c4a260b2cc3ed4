import { describe, expect, it } from "vitest";
import { Cluster } from "../../src/kafka/cluster.js";
import { Errors } from "../../src/kafka/common/errors.js";
import { NO_GHOST, type ProduceRefused } from "../../src/kafka/ghost.js";
import type { KafkaRequest, KafkaResponse } from "../../src/kafka/protocol.js";
import { loadScenario } from "../../src/scenario/loader.js";
import { toClusterSpec } from "../../src/scenario/to-cluster-spec.js";
import { ChoiceSource } from "../../src/sim/choice-tape.js";
import { Simulation } from "../../src/sim/simulation.js";
import { Trace } from "../../src/sim/trace.js";

/**
 * A leader's refusal tells the ghost whether its log already holds the refused batch itself
 * (heldAtOffset): a copy of a batch older than the producer's last 5 (ProducerStateEntry.
 * NUM_BATCHES_TO_RETAIN) is not recognised as a duplicate and is refused OUT_OF_ORDER_SEQUENCE_NUMBER
 * although it is in the log (everything's seeds 3208 and 4559: a request delayed on a closed
 * connection). The stuck-sequence check must not call that a batch stuck behind a later one.
 */
describe("a refused Produce names the offset where the log already holds that batch", () => {
  function cluster() {
    const spec = toClusterSpec(loadScenario("kip-1228").scenario);
    spec.producers.count = 0;
    spec.consumers.count = 0;
    const sim = new Simulation(new Trace());
    const refused: ProduceRefused[] = [];
    const ghost = { ...NO_GHOST, produceRefused: (e: ProduceRefused) => refused.push(e) };
    const c = new Cluster(spec, sim, ChoiceSource.seeded(1), ghost);
    c.net.faultsActive = false;
    c.startBrokers();
    sim.run({ maxEvents: 100_000, maxTimeMs: 2_000 });
    const ask = (to: string, body: KafkaRequest): KafkaResponse => {
      let result: KafkaResponse | null = null;
      c.net.request(c.net.connect("tester", to), body, 5_000, (r) => {
        if (r.kind === "response") result = r.body;
      });
      sim.run({ maxEvents: 100_000, maxTimeMs: sim.nowMs + 5_000 }, () => result !== null);
      if (result === null) throw new Error(`${body.api}: no answer`);
      return result;
    };
    const meta = ask(spec.brokers[0]?.id as string, { api: "Metadata" });
    if (meta.api !== "Metadata") throw new Error("no metadata");
    const leader = meta.partitions.find((p) => p.partition === "orders-0")?.leader as string;
    return { leader, ask, refused };
  }
  const produce = (baseSequence: number): KafkaRequest => ({
    api: "Produce",
    version: 12,
    transactionalId: null,
    producerId: 1000,
    producerEpoch: 0,
    partition: "orders-0",
    baseSequence,
    values: [`p0.t1/${baseSequence}`],
    timeoutMs: 1_000,
    ghostTxn: "p0.t1",
  });

  it("a copy of sequence 0 after sequences 1..5: refused, held at offset 0; a gap: refused, not held", () => {
    const { leader, ask, refused } = cluster();
    for (let seq = 0; seq <= 5; seq++) expect(ask(leader, produce(seq))).toMatchObject({ errorCode: Errors.NONE });
    // Sequence 5 is still retained: its copy is a duplicate, answered with its offset.
    expect(ask(leader, produce(5))).toMatchObject({ errorCode: Errors.NONE, baseOffset: 5 });
    expect(ask(leader, produce(0))).toMatchObject({ errorCode: Errors.OUT_OF_ORDER_SEQUENCE_NUMBER });
    expect(ask(leader, produce(7))).toMatchObject({ errorCode: Errors.OUT_OF_ORDER_SEQUENCE_NUMBER });
    expect(refused.map((e) => ({ seq: e.baseSequence, heldAtOffset: e.heldAtOffset }))).toEqual([
      { seq: 0, heldAtOffset: 0 },
      { seq: 7, heldAtOffset: undefined },
    ]);
  });
});
