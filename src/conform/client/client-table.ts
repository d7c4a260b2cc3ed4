import type { KafkaHarness } from "../../harness/harness-process.js";
import type { ReleaseFlags } from "../../kafka/release.js";
import type { FieldDifference } from "../compare.js";
import { type ClientAnswer, type ClientCase, clientCases, COMPARED_FIELDS } from "./client-cases.js";
import { kafkaClientAnswer } from "./kafka-client.js";
import { modelClientAnswer } from "./model-client.js";

/** One cell of the table: Kafka's answer beside the model's, and every compared field where they differ. */
export interface ClientCell {
  case: ClientCase;
  kafka: ClientAnswer;
  /** Null when the release has no model profile to judge. */
  model: ClientAnswer | null;
  differences: FieldDifference[];
}

/** The whole table of one release. */
export interface ClientTable {
  release: string;
  /** The model's profile judged, or null when jvm/releases.json names one the model does not have. */
  profile: string | null;
  cells: ClientCell[];
  /** Cells with at least one difference. */
  differing: number;
}

export interface ClientTableOptions {
  harness: KafkaHarness;
  /** The model's flags for this release (a mutant's overrides included); null: Kafka's side only. */
  flags: Readonly<ReleaseFlags> | null;
  profile: string | null;
  cases?: readonly ClientCase[];
  /** Cells sent to the harness before their replies are awaited (it answers in order). */
  inFlight?: number;
  onProgress?: (done: number, total: number) => void;
}

/** Every compared field where the two answers differ, in COMPARED_FIELDS order. */
export function answerDifferences(model: ClientAnswer, kafka: ClientAnswer): FieldDifference[] {
  const out: FieldDifference[] = [];
  for (const field of COMPARED_FIELDS)
    if (!Object.is(model[field], kafka[field])) out.push({ path: field, model: model[field], kafka: kafka[field] });
  return out;
}

/** Kafka's producer classes and the model's TransactionManager, cell by cell. */
export async function runClientTable(options: ClientTableOptions): Promise<ClientTable> {
  const cases = options.cases ?? clientCases();
  const inFlight = options.inFlight ?? 64;
  const cells: ClientCell[] = [];
  for (let start = 0; start < cases.length; start += inFlight) {
    const batch = cases.slice(start, start + inFlight);
    const answers = await Promise.all(batch.map((c) => kafkaClientAnswer(options.harness, c)));
    batch.forEach((c, i) => {
      const kafka = answers[i] as ClientAnswer;
      const model = options.flags ? modelClientAnswer(options.flags, c) : null;
      cells.push({
        case: c,
        kafka,
        model,
        differences: model ? answerDifferences(model, kafka) : [],
      });
    });
    options.onProgress?.(cells.length, cases.length);
  }
  return {
    release: options.harness.release.release,
    profile: options.flags ? options.profile : null,
    cells,
    differing: cells.filter((c) => c.differences.length > 0).length,
  };
}
