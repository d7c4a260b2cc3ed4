// One measurement in a fresh process: `node dist-bench/figure.js <figure> [args...]` prints one
// JSON object on stdout. bench/main.ts runs each figure several times this way, so that no run
// inherits another's JIT state, heap or garbage.
import {
  measureCeiling,
  measureFirstFailures,
  measureMemory,
  measureQueueDepth,
  measureShrink,
  measureThroughput,
} from "./engine-figures.js";
import { measureFastCheck } from "./fast-check-race.js";

const [figure, ...args] = process.argv.slice(2);
const num = (i: number, fallback?: number): number => {
  const v = args[i] === undefined ? fallback : Number(args[i]);
  if (v === undefined || !Number.isFinite(v)) throw new Error(`${figure}: argument ${i + 1} must be a number`);
  return v;
};
const str = (i: number): string => {
  const v = args[i];
  if (v === undefined) throw new Error(`${figure}: argument ${i + 1} is missing`);
  return v;
};

async function measure(): Promise<unknown> {
  switch (figure) {
    case "ceiling":
      return measureCeiling(num(0), num(1), num(2));
    case "throughput":
      return measureThroughput(str(0), num(1));
    case "queue-depth":
      return measureQueueDepth(str(0), num(1));
    case "first-failure":
      return measureFirstFailures(str(0), str(1), num(2), num(3));
    case "shrink":
      return measureShrink(str(0), num(1));
    case "fast-check":
      return measureFastCheck(num(0), num(1), num(2));
    case "memory":
      return measureMemory(str(0), num(1), num(2), num(3));
    default:
      throw new Error(`unknown figure ${figure}`);
  }
}

process.stdout.write(`${JSON.stringify(await measure())}\n`);
