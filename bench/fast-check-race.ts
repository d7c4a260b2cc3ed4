// What a user would otherwise write: the KIP-1228 gap race as a plain fast-check property over a
// minimal hand-made model, with fc.scheduler() choosing the order in which messages arrive.
//
// One TV2 producer, one partition whose leader runs Kafka 4.1 (legacy marker rule: marker epoch >=
// producer epoch) and a coordinator. T1 is written at epoch 0; its commit bumps the epoch, so its
// marker carries epoch 1. The marker request is slow: the coordinator times out and re-sends it.
// The first acknowledged copy completes T1, after which T2 (epoch 1) can write. A copy still in
// flight then reaches the leader, is accepted (1 >= 1) and closes T2's records: a stale marker.
// With the KIP-1228 strict rule (epoch must be greater, KAFKA-19999 tolerance only with no open
// transaction) the late copy is rejected.
//
// Unlike eosfuzz, this model knows the race in advance: its author wrote down the retry, the
// completion and the next transaction. It measures how fast a scheduler-driven property finds a
// race that is already modelled, not how fast one is discovered in a full protocol model.
import fc from "fast-check";

/** A partition leader's view of one producer: its epoch, its open transaction, what markers closed. */
class MinimalLeader {
  private epoch = -1;
  private openTxn: string | null = null;
  /** Markers that closed a transaction other than the one they were issued for. */
  readonly staleMarkers: string[] = [];

  constructor(private readonly strict: boolean) {}

  produce(txn: string, epoch: number): void {
    if (epoch < this.epoch) return; // fenced
    this.epoch = epoch;
    if (this.openTxn === null) this.openTxn = txn;
  }

  marker(issuedFor: string, epoch: number): void {
    const accepted = this.strict
      ? epoch > this.epoch || (epoch === this.epoch && this.openTxn === null)
      : epoch >= this.epoch;
    if (!accepted) return;
    if (this.openTxn !== null && this.openTxn !== issuedFor)
      this.staleMarkers.push(`marker for ${issuedFor} closed ${this.openTxn}`);
    this.openTxn = null;
    this.epoch = epoch;
  }
}

/** One run of the race under the scheduler's order; resolves with the stale markers seen. */
export async function kip1228GapRace(s: fc.Scheduler, strictLeader: boolean): Promise<string[]> {
  const leader = new MinimalLeader(strictLeader);
  let acked = false;
  const completeT1 = () => {
    // CompleteCommit is written: T2's implicit AddPartitionsToTxn succeeds and its records arrive.
    void s.schedule(Promise.resolve(), "T2 produce arrives").then(() => leader.produce("T2", 1));
  };
  const sendMarker = (copy: string): Promise<void> =>
    s.schedule(Promise.resolve(), `T1 marker ${copy} arrives`).then(() => {
      leader.marker("T1", 1);
      return s.schedule(Promise.resolve(), `ack of ${copy}`).then(() => {
        if (acked) return;
        acked = true;
        completeT1();
      });
    });
  leader.produce("T1", 0);
  void sendMarker("copy 1");
  void s.schedule(Promise.resolve(), "marker request times out").then(() => (acked ? undefined : sendMarker("copy 2")));
  await s.waitIdle();
  return leader.staleMarkers;
}

export interface FastCheckFigure {
  /** Runs of the property up to and including the first failing one. */
  runs: number;
  timeMs: number;
  failed: boolean;
}

/** Run the property with one fast-check seed until its first failure (no shrinking). */
export async function firstFailureOfFastCheck(
  seed: number,
  maxRuns: number,
  strictLeader = false,
): Promise<FastCheckFigure> {
  const t0 = performance.now();
  const details = await fc.check(
    fc.asyncProperty(fc.scheduler(), async (s) => (await kip1228GapRace(s, strictLeader)).length === 0),
    { seed, numRuns: maxRuns, endOnFailure: true },
  );
  return { runs: details.numRuns, timeMs: performance.now() - t0, failed: details.failed };
}

export interface FastCheckCampaigns {
  /** One per fast-check seed 0..campaigns-1 (runs and time to its first failure). */
  campaigns: FastCheckFigure[];
  /** The same property with the KIP-1228 strict rule: it must hold (else the model is wrong). */
  strictRule: { runs: number; failed: boolean };
}

/** `campaigns` fast-check seeds with the legacy rule, then `strictRuns` runs with the strict rule. */
export async function measureFastCheck(
  campaigns: number,
  maxRuns: number,
  strictRuns: number,
): Promise<FastCheckCampaigns> {
  await firstFailureOfFastCheck(900_000_000, 100); // warm-up, like the engine's figures
  const out: FastCheckFigure[] = [];
  for (let seed = 0; seed < campaigns; seed++) out.push(await firstFailureOfFastCheck(seed, maxRuns));
  const strict = await firstFailureOfFastCheck(0, strictRuns, true);
  return { campaigns: out, strictRule: { runs: strict.runs, failed: strict.failed } };
}
