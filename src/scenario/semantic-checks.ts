import { RELEASES } from "../kafka/release.js";
import { LIMITS, type Scenario } from "./schema.js";
import { scriptProblems } from "./script/script-checks.js";

export interface SemanticProblem {
  path: (string | number)[];
  message: string;
}

/**
 * Checks that span fields (the schema checks each field alone). `given` is the scenario as written
 * (before defaults), to tell a field the author wrote from one the schema filled in.
 */
export function semanticProblems(s: Scenario, given: Record<string, unknown> = {}): SemanticProblem[] {
  const problems: SemanticProblem[] = [];
  const ids = new Map<string, (string | number)[]>();
  s.cluster.brokers.forEach((n, i) => {
    const path = ["cluster", "brokers", i, "id"];
    if (ids.has(n.id)) problems.push({ path, message: `expected a unique broker id, found "${n.id}" twice` });
    ids.set(n.id, path);
  });
  const brokerIds = [...ids.keys()];
  problems.push(...assignmentProblems(s.cluster.transactionState, ["cluster", "transactionState"], brokerIds));
  const topicNames = new Set<string>();
  s.cluster.topics.forEach((t, ti) => {
    if (topicNames.has(t.name))
      problems.push({
        path: ["cluster", "topics", ti, "name"],
        message: `expected a unique topic name, found "${t.name}" twice`,
      });
    topicNames.add(t.name);
    problems.push(...assignmentProblems(t, ["cluster", "topics", ti], brokerIds));
  });
  const brokerNamed = (node: string, path: (string | number)[]) => {
    if (!ids.has(node))
      problems.push({ path, message: `expected a broker id (${brokerIds.join(", ")}), found "${node}"` });
  };
  for (const [i, u] of s.faults.upgrades.entries()) brokerNamed(u.node, ["faults", "upgrades", i, "node"]);
  for (const [i, node] of (s.faults.rollingUpgrade?.order ?? []).entries())
    brokerNamed(node, ["faults", "rollingUpgrade", "order", i]);
  if (s.cluster.transactionVersion >= 2) {
    // FeatureControlManager refuses a finalized level some registered broker does not support.
    s.cluster.brokers.forEach((b, i) => {
      if (!(b.overrides.supportsTransactionVersion2 ?? RELEASES[b.release].supportsTransactionVersion2))
        problems.push({
          path: ["cluster", "brokers", i, "release"],
          message: `expected a release that supports transaction.version 2 (4.0 or later) on every broker, found "${b.release}" (set cluster.transactionVersion below 2 for it)`,
        });
    });
  }
  problems.push(...tcpProblems(s));
  problems.push(...processingProblems(s, topicNames, brokerIds));
  if (s.script) {
    problems.push(...scriptProblems(s, s.script, given));
    return problems.concat(expectationProblems(s));
  }
  problems.push(...sizeProblems(s));
  problems.push(...emptyTransactionProblems(s));
  const totalPartitions = s.cluster.topics.reduce((n, t) => n + partitionCountOf(t, s.cluster.brokers.length), 0);
  if (s.workload.partitionsPerTxn[0] > totalPartitions) {
    problems.push({
      path: ["workload", "partitionsPerTxn"],
      message: `expected at most ${totalPartitions} partitions (the cluster's total), found ${s.workload.partitionsPerTxn[0]}`,
    });
  }
  // A client release knows TV2 from 4.0 on; the model's producer knows it exactly when transactionVersion is 2.
  const clientRelease = s.workload.release;
  if (
    clientRelease !== undefined &&
    RELEASES[clientRelease].supportsTransactionVersion2 !== (s.workload.transactionVersion === 2)
  )
    problems.push({
      path: ["workload", "release"],
      message: RELEASES[clientRelease].supportsTransactionVersion2
        ? `expected workload.transactionVersion 2 for a ${clientRelease} client: a 4.0+ KafkaProducer knows TV2 (cluster.transactionVersion decides whether it uses it)`
        : `expected a 4.0+ release for a TV2 client (workload.transactionVersion 2), found ${clientRelease}`,
    });
  // 4.0+ producers (TV2) on a cluster that finalizes TV2 only later run TV1 until then.
  const finalizedLater = s.faults.featureUpdates.some((u) => u.transactionVersion >= 2);
  if (s.workload.transactionVersion === 2 && s.cluster.transactionVersion < 2 && !finalizedLater) {
    problems.push({
      path: ["workload", "transactionVersion"],
      message:
        "expected <= cluster.transactionVersion: TV2 producers need transaction.version=2 finalized (now, or later by faults.featureUpdates)",
    });
  }
  const updates = s.faults.featureUpdates;
  updates.forEach((update, i) => {
    const previous = updates[i - 1];
    if (previous !== undefined && update.atMs < previous.atMs)
      problems.push({
        path: ["faults", "featureUpdates", i, "atMs"],
        message: "expected feature updates in time order",
      });
  });
  const cfg = s.cluster.config;
  const needed = s.workload.transactionTimeoutMs + 2 * cfg.abortTimedOutTransactionCleanupIntervalMs;
  if (s.bounds.quietPeriodMs < needed) {
    problems.push({
      path: ["bounds", "quietPeriodMs"],
      message: `expected >= ${needed} (transactionTimeoutMs + 2 cleanup intervals) so abandoned transactions time out before the checks, found ${s.bounds.quietPeriodMs}`,
    });
  }
  return problems.concat(expectationProblems(s));
}

type AssignmentInput = Scenario["cluster"]["topics"][number] | Scenario["cluster"]["transactionState"];

/** How many partitions a topic has, as to-cluster-spec resolves it. */
function partitionCountOf(t: AssignmentInput, brokers: number): number {
  return t.replicas?.length ?? t.partitions ?? brokers;
}

/** An explicit assignment names known brokers, once per partition, and does not also give partitions or a replication factor. */
function assignmentProblems(
  t: AssignmentInput,
  path: (string | number)[],
  brokers: readonly string[],
): SemanticProblem[] {
  const problems: SemanticProblem[] = [];
  if (t.replicas && (t.partitions !== undefined || t.replicationFactor !== undefined))
    problems.push({
      path: [...path, "replicas"],
      message: "expected either replicas (an explicit assignment) or partitions and replicationFactor, found both",
    });
  if (t.replicationFactor !== undefined && t.replicationFactor > brokers.length)
    problems.push({
      path: [...path, "replicationFactor"],
      message: `expected at most ${brokers.length} (the number of brokers), found ${t.replicationFactor}`,
    });
  (t.replicas ?? []).forEach((replicas, pi) => {
    replicas.forEach((b, ri) => {
      if (!brokers.includes(b))
        problems.push({
          path: [...path, "replicas", pi, ri],
          message: `expected one of the brokers (${brokers.join(", ")}), found "${b}"`,
        });
      else if (replicas.indexOf(b) !== ri)
        problems.push({
          path: [...path, "replicas", pi, ri],
          message: `expected each broker once per partition, found "${b}" twice`,
        });
    });
  });
  return problems;
}

/**
 * A workload bigger than one run can hold is refused up front, naming the limit, rather than left
 * to exhaust memory (each field is within its own bound; their product may not be).
 */
/** The processors read one topic of the cluster and write another, and have no script to compete with. */
function processingProblems(s: Scenario, topics: ReadonlySet<string>, brokerIds: readonly string[]): SemanticProblem[] {
  const p = s.processing;
  if (!p) return [];
  const problems: SemanticProblem[] = [];
  for (const field of ["inputTopic", "outputTopic"] as const)
    if (!topics.has(p[field]))
      problems.push({
        path: ["processing", field],
        message: `expected a topic of cluster.topics (${[...topics].join(", ")}), found "${p[field]}"`,
      });
  if (p.inputTopic === p.outputTopic)
    problems.push({
      path: ["processing", "outputTopic"],
      message: "expected an output topic other than the input topic",
    });
  if (s.script)
    problems.push({ path: ["processing"], message: "expected no processing section in a scripted scenario" });
  // A simple (generation -1) commit to the processors' managed group would get UNKNOWN_MEMBER_ID.
  if (p.committers && p.committers.groupId === p.groupId)
    problems.push({
      path: ["processing", "committers", "groupId"],
      message: `expected a group other than the processors' ("${p.groupId}")`,
    });
  problems.push(...assignmentProblems(p.offsetsTopic, ["processing", "offsetsTopic"], brokerIds));
  return problems;
}

function sizeProblems(s: Scenario): SemanticProblem[] {
  const w = s.workload;
  const transactions = w.producers * w.transactions;
  const records = transactions * w.recordsPerTxn[1];
  const n = (x: number) => x.toLocaleString("en-US");
  if (transactions > LIMITS.transactionsPerSeed) {
    return [
      {
        path: ["workload", "transactions"],
        message: `expected at most ${n(LIMITS.transactionsPerSeed)} transactions per seed (producers x transactions, the limit transactionsPerSeed of what one run holds in memory), found ${n(w.producers)} x ${n(w.transactions)} = ${n(transactions)}`,
      },
    ];
  }
  if (records > LIMITS.recordsPerSeed) {
    return [
      {
        path: ["workload", "recordsPerTxn"],
        message: `expected at most ${n(LIMITS.recordsPerSeed)} records per seed (producers x transactions x the most records per transaction, the limit recordsPerSeed of what one run holds in memory), found ${n(w.producers)} x ${n(w.transactions)} x ${n(w.recordsPerTxn[1])} = ${n(records)}`,
      },
    ];
  }
  return [];
}

/**
 * A transaction on no partition (partitionsPerTxn from 0): the producer has nothing to add to it,
 * and every seed that draws 0 ends in a model error instead of a finding. Refused up front.
 */
function emptyTransactionProblems(s: Scenario): SemanticProblem[] {
  if (s.workload.partitionsPerTxn[0] >= 1) return [];
  return [
    {
      path: ["workload", "partitionsPerTxn"],
      message: `expected at least 1 partition per transaction (a transaction on none has nothing to commit, and every run that draws it ends in a model error), found [${s.workload.partitionsPerTxn.join(", ")}]`,
    },
  ];
}

function expectationProblems(s: Scenario): SemanticProblem[] {
  const problems: SemanticProblem[] = [];
  const e = s.expect;
  const finds = e.find.length + e.findAny.length;
  if (e.clean && finds > 0)
    problems.push({
      path: ["expect", "clean"],
      message: "expected either clean: true or a find/findAny list, found both",
    });
  if (e.where && finds === 0)
    problems.push({ path: ["expect", "where"], message: "expected a find or findAny list for where to apply to" });
  if (e.within !== undefined && finds === 0)
    problems.push({ path: ["expect", "within"], message: "expected a find or findAny list for within to apply to" });
  (s.coverage?.goals ?? []).forEach((g, i) => {
    const given = [g.marker, g.offsetsMarker, g.event].filter((x) => x !== undefined).length;
    if (given !== 1)
      problems.push({
        path: ["coverage", "goals", i],
        message: "expected exactly one of marker, offsetsMarker or event",
      });
  });
  return problems;
}

/** Under the TCP model a connection never duplicates or reorders: rates for those are a mistake, not a no-op. */
function tcpProblems(s: Scenario): SemanticProblem[] {
  if (s.faults.network.model !== "tcp") return [];
  const problems: SemanticProblem[] = [];
  const links = [["network", s.faults.network] as const, ["markerRequests", s.faults.markerRequests] as const];
  for (const [name, link] of links) {
    for (const field of ["duplicate", "reorder"] as const) {
      if (link === undefined || link[field] === 0) continue;
      problems.push({
        path: ["faults", name, field],
        message: `expected 0 under faults.network.model tcp (TCP delivers a connection's messages once and in order; late copies come from re-sends after a timeout), found ${link[field]}; set faults.network.model: adversarial to keep it`,
      });
    }
  }
  return problems;
}
