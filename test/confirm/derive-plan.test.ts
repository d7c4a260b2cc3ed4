import { describe, expect, it } from "vitest";
import { derivePlan } from "../../src/confirm/plan/derive-plan.js";
import { modelRunOfSeed, modelRunOfSeedFile } from "../../src/confirm/plan/model-run.js";
import { loadScenario } from "../../src/scenario/loader.js";
import { describeStep } from "../../src/confirm/plan/plan.js";

// A shrunk counterexample becomes a plan: the cluster of its releases, the client steps in the
// model's order, and a hold for every marker copy the coordinator had re-sent before it arrived.

const GAP = "test/real-cluster/fixtures/kip-1228-gap-4.1-coordinator.tape.json";

describe("the plan of a counterexample", () => {
  it("kip-1228-gap: a 4.1.2 coordinator's first COMMIT copy to the 4.2.1 leader is held until p1.t2 wrote there", () => {
    const plan = derivePlan(modelRunOfSeedFile(GAP));
    expect(plan.brokers.map((b) => `${b.name} ${b.profile} ${b.release}`)).toEqual([
      "broker-0 4.2.1 4.2.1",
      "broker-1 4.2.1 4.2.1",
      "broker-2 4.1 4.1.2",
    ]);
    expect([plan.controllerRelease, plan.clientRelease, plan.transactionVersion]).toEqual(["4.1.2", "4.2.1", 2]);
    expect(plan.producers).toEqual([
      { name: "p0", transactionalId: "txn-0", coordinator: "broker-1" },
      { name: "p1", transactionalId: "txn-1", coordinator: "broker-2" },
    ]);
    expect(plan.faults).toMatchObject([
      {
        id: "hold-1",
        broker: "broker-0",
        coordinator: "broker-2",
        producer: "p1",
        result: "COMMIT",
        nth: 1,
        txn: "p1.t1",
      },
    ]);
    const order = plan.steps.map(describeStep);
    const at = (s: string) => order.indexOf(s);
    expect(at("the proxy arms hold-1")).toBeLessThan(at("p1 commits p1.t1"));
    expect(at("p1 sends p1.t2/1 to orders-0 and waits for the ack")).toBeLessThan(
      at("the proxy releases the copy hold-1 holds"),
    );
    expect(at("the proxy releases the copy hold-1 holds")).toBeLessThan(at("p1 commits p1.t2"));
    // The copy the coordinator re-sent lands before p1.t2 writes, as in the model.
    expect(at("p1 commits p1.t1")).toBeLessThan(at("p1.t1's COMMIT marker has landed at orders-0"));
    expect(at("p1.t1's COMMIT marker has landed at orders-0")).toBeLessThan(
      at("p1 sends p1.t2/0 to orders-0 and waits for the ack"),
    );
    expect(plan.modelViolations.map((v) => v.kind)).toEqual(["stale-marker"]);
    expect(plan.unsupported).toEqual([]);
  });

  it("never waits for a transaction's markers before its commit or abort is called (the model's markers may land before the EndTxn answer)", () => {
    const runs = [
      ...[
        GAP,
        "seeds/tv1-legacy.tape-55d01f75709b9a32.json",
        "seeds/admin-abort-stale-epoch.tape-a447d1b5158212ba.json",
      ].map((f) => [f, modelRunOfSeedFile(f)] as const),
      // Ten transactions, whose markers at orders-2 land before the producer hears of its commit.
      ["admin-abort-stale-epoch seed 17", modelRunOfSeed(loadScenario("admin-abort-stale-epoch"), 17, 0)] as const,
    ];
    for (const [file, run] of runs) {
      const steps = derivePlan(run).steps;
      steps.forEach((s, i) => {
        if (s.kind !== "await-marker" && s.kind !== "await-complete") return;
        const end = steps.findIndex((x) => (x.kind === "commit" || x.kind === "abort") && x.txn === s.txn);
        expect(end, `${file}: ${describeStep(s)}`).toBeGreaterThanOrEqual(0);
        expect(end, `${file}: ${describeStep(s)}`).toBeLessThan(i);
      });
    }
  });

  it("--all-brokers runs every broker, the controller and the clients on that release", () => {
    const plan = derivePlan(modelRunOfSeedFile(GAP), { allBrokers: "4.2.1" });
    expect(plan.brokers.map((b) => b.release)).toEqual(["4.2.1", "4.2.1", "4.2.1"]);
    expect(plan.brokers[2]?.profile).toBe("4.2.1");
    expect(plan.controllerRelease).toBe("4.2.1");
    expect(plan.faults.length).toBe(1);
  });

  it("tv1-legacy runs on 3.9.1 at transaction.version 0", () => {
    const plan = derivePlan(modelRunOfSeedFile("seeds/tv1-legacy.tape-55d01f75709b9a32.json"));
    expect(plan.brokers.map((b) => b.release)).toEqual(["3.9.1", "3.9.1", "3.9.1"]);
    expect(plan.transactionVersion).toBe(0);
    expect(plan.faults.map((f) => `${f.coordinator}>${f.broker} ${f.txn}`)).toEqual(["broker-1>broker-0 p0.t1"]);
  });

  it("admin-abort-stale-epoch: the operator's abort is a step where its marker reached the leader, and nothing is held", () => {
    const plan = derivePlan(modelRunOfSeedFile("seeds/admin-abort-stale-epoch.tape-a447d1b5158212ba.json"));
    expect(plan.faults).toEqual([]);
    const order = plan.steps.map(describeStep);
    const abort = order.indexOf("Admin.abortTransaction at orders-0 for p0 (epoch 0, coordinator epoch 0)");
    expect(abort).toBeGreaterThan(order.indexOf("p0 sends p0.t1/1 to orders-0 and waits for the ack"));
    expect(abort).toBeLessThan(order.indexOf("p0 commits p0.t1"));
  });
});
