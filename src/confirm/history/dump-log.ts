import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { compareReleases, kafkaClasspath } from "../cluster/kafka-jars.js";
import { runGuarded } from "../process/child-registry.js";

/** One batch of a partition's raw log as Kafka's DumpLogSegments prints it, with its records. */
export interface DumpedBatch {
  partition: string;
  baseOffset: number;
  lastOffset: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  partitionLeaderEpoch: number;
  isTransactional: boolean;
  isControl: boolean;
  /** CreateTime: the client's for data, the leader's clock for a marker. */
  createTime: number;
  /** Data: the record values. */
  values: string[];
  /** Control: the marker. */
  marker: { result: "COMMIT" | "ABORT"; coordinatorEpoch: number } | null;
  /** The batch's lines as DumpLogSegments printed them (evidence for the report). */
  lines: string[];
}

/** A __transaction_state record: a transactional.id's metadata (null fields: a tombstone). */
export interface TxnLogRecord {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  /** Kafka's state name: Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Dead, PrepareEpochFence. */
  state: string;
  partitions: string[];
  /** The tagged ClientTransactionVersion (0 when absent: written by a TV0 coordinator or before 4.0). */
  clientTransactionVersion: number;
}

const TXN_STATES = [
  "Empty",
  "Ongoing",
  "PrepareCommit",
  "PrepareAbort",
  "CompleteCommit",
  "CompleteAbort",
  "Dead",
  "PrepareEpochFence",
];

/**
 * One decoded __transaction_state record. 4.x prints JSON (`key: {"type":"0","data":{...}} payload:
 * {"version":"1","data":{...}}`, the state as a number); 3.9 prints text (`key:
 * transaction_metadata::transactionalId=X payload: producerId:0,producerEpoch:0,state=Ongoing,partitions=[orders-0],...`).
 */
export function parseTxnRecord(line: string): TxnLogRecord | null {
  const json = / key: (\{.*?\}) payload: (\{.*\})\s*$/.exec(line);
  if (json) {
    const key = (safeJson(json[1] as string) as { data?: { transactionalId?: string } } | null)?.data;
    const value = (safeJson(json[2] as string) as { data?: Record<string, unknown> } | null)?.data;
    if (!key?.transactionalId || !value) return null;
    const partitions = (
      (value.transactionPartitions as { topic: string; partitionIds: number[] }[] | null) ?? []
    ).flatMap((t) => t.partitionIds.map((id) => `${t.topic}-${id}`));
    return {
      transactionalId: key.transactionalId,
      producerId: Number(value.producerId),
      producerEpoch: Number(value.producerEpoch),
      state: TXN_STATES[Number(value.transactionStatus)] ?? String(value.transactionStatus),
      partitions,
      clientTransactionVersion: Number(value.clientTransactionVersion ?? 0),
    };
  }
  const text =
    / key: transaction_metadata::transactionalId=(\S+) payload: producerId:(-?\d+),producerEpoch:(-?\d+),state=(\w+),partitions=\[([^\]]*)\]/.exec(
      line,
    );
  if (!text) return null;
  return {
    transactionalId: text[1] as string,
    producerId: Number(text[2]),
    producerEpoch: Number(text[3]),
    state: text[4] as string,
    partitions: (text[5] as string)
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean),
    clientTransactionVersion: 0,
  };
}

/** The .log segment files of a partition's directory in a broker's data dir, in offset order. */
export function segmentFiles(dataDir: string, partition: string): string[] {
  const dir = join(dataDir, partition);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".log"))
    .sort()
    .map((f) => join(dir, f));
}

const FIELD = /(\w+): (\S+)/g;

/** Parse DumpLogSegments --deep-iteration --print-data-log output (its "Dumping FILE" lines name the partitions). */
export function parseDump(text: string): DumpedBatch[] {
  const batches: DumpedBatch[] = [];
  let partition = "";
  let current: DumpedBatch | null = null;
  for (const line of text.split("\n")) {
    if (line.startsWith("Dumping ")) {
      const parts = line.slice("Dumping ".length).trim().split("/");
      partition = parts[parts.length - 2] ?? "";
      continue;
    }
    if (line.startsWith("baseOffset:")) {
      const f = new Map<string, string>();
      for (const m of line.matchAll(FIELD)) f.set(m[1] as string, m[2] as string);
      current = {
        partition,
        baseOffset: Number(f.get("baseOffset")),
        lastOffset: Number(f.get("lastOffset")),
        producerId: Number(f.get("producerId")),
        producerEpoch: Number(f.get("producerEpoch")),
        baseSequence: Number(f.get("baseSequence")),
        partitionLeaderEpoch: Number(f.get("partitionLeaderEpoch")),
        isTransactional: f.get("isTransactional") === "true",
        isControl: f.get("isControl") === "true",
        createTime: Number(f.get("CreateTime")),
        values: [],
        marker: null,
        lines: [line],
      };
      batches.push(current);
      continue;
    }
    if (current && line.startsWith("| offset:")) {
      current.lines.push(line);
      const marker = /endTxnMarker: (COMMIT|ABORT) coordinatorEpoch: (-?\d+)/.exec(line);
      if (marker) {
        current.marker = { result: marker[1] as "COMMIT" | "ABORT", coordinatorEpoch: Number(marker[2]) };
        continue;
      }
      // __transaction_state records (the transaction log decoder) are read from the lines: parseTxnRecord.
      if (line.includes(" key: ")) continue;
      const payload = / payload: (.*)$/.exec(line);
      if (payload) current.values.push(payload[1] as string);
    }
  }
  return batches;
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

/**
 * Read segment files with a release's own DumpLogSegments (one JVM for all of them): every batch,
 * control batches included, with their records (or, for __transaction_state, decoded records).
 */
export async function dumpLogSegments(
  release: string,
  files: readonly string[],
  options: { transactionLog?: boolean; timeoutMs?: number } = {},
): Promise<{ batches: DumpedBatch[]; raw: string }> {
  if (files.length === 0) return { batches: [], raw: "" };
  const args = [
    "-Xmx256m",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-Xshare:auto",
    "-Dlog4j2.level=OFF",
    "-cp",
    kafkaClasspath(release),
    // 4.3 moved the tool from the broker's Scala (kafka_2.13) to kafka-tools' Java.
    compareReleases(release, "4.3.0") >= 0 ? "org.apache.kafka.tools.DumpLogSegments" : "kafka.tools.DumpLogSegments",
    "--deep-iteration",
    "--print-data-log",
    ...(options.transactionLog ? ["--transaction-log-decoder"] : []),
    "--files",
    files.join(","),
  ];
  const r = await runGuarded("java", args, {
    what: `DumpLogSegments (Kafka ${release})`,
    timeoutMs: options.timeoutMs ?? 60_000,
  });
  if (r.code !== 0)
    throw new Error(
      `DumpLogSegments failed (${r.timedOut ? "timed out" : `exit ${r.code}`}): ${r.stderr.trim().split("\n").slice(-3).join(" | ")}`,
    );
  return { batches: parseDump(r.stdout), raw: r.stdout };
}
