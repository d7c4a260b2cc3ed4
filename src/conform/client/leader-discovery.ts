import type { KafkaHarness } from "../../harness/harness-process.js";
import { ClientMetadata } from "../../kafka/client/client-metadata.js";
import type { ClusterContext } from "../../kafka/cluster-context.js";

/**
 * KIP-951's client rule, Metadata.updatePartitionLeadership, held to Kafka's (the harness's
 * `clientMetadata` service, jvm/PROTOCOL.md): one partition whose leader the client cached (or did
 * not), and the leader a Produce or Fetch error named. Broker ids are numbers on Kafka's side and
 * `broker-N` in the model; -1 is "none".
 */
export interface LeaderDiscoveryCase {
  /** The cached leader of the partition (null: the partition is not in the client's metadata). */
  cached: { leaderId: number; leaderEpoch: number } | null;
  /** The CurrentLeader the error named. */
  incoming: { leaderId: number; leaderEpoch: number };
  /** The response's NodeEndpoints (broker ids): the model's clients know every broker, so it is always all three. */
  nodeEndpoints: number[];
}

export interface LeaderDiscoveryAnswer {
  updated: boolean;
  leaderId: number;
  leaderEpoch: number;
}

/** Every combination of a cached epoch 3 (or none) and an incoming leader id and epoch around it. */
export function leaderDiscoveryCases(): LeaderDiscoveryCase[] {
  const out: LeaderDiscoveryCase[] = [];
  for (const cached of [{ leaderId: 0, leaderEpoch: 3 }, null])
    for (const leaderId of [-1, 0, 1])
      for (const leaderEpoch of [-1, 0, 2, 3, 4, 7])
        out.push({ cached, incoming: { leaderId, leaderEpoch }, nodeEndpoints: [0, 1, 2] });
  return out;
}

export function caseLabel(c: LeaderDiscoveryCase): string {
  const cached = c.cached ? `${c.cached.leaderId}@${c.cached.leaderEpoch}` : "uncached";
  return `cached ${cached}, named ${c.incoming.leaderId}@${c.incoming.leaderEpoch}`;
}

export async function kafkaLeaderDiscovery(
  harness: KafkaHarness,
  c: LeaderDiscoveryCase,
): Promise<LeaderDiscoveryAnswer> {
  const r = await harness.request({ service: "clientMetadata", ...c });
  return { updated: r.updated as boolean, leaderId: r.leaderId as number, leaderEpoch: r.leaderEpoch as number };
}

/** The model's ClientMetadata, with no network use: only its cache and updatePartitionLeadership. */
export function modelLeaderDiscovery(c: LeaderDiscoveryCase): LeaderDiscoveryAnswer {
  const name = (id: number) => (id === -1 ? null : `broker-${id}`);
  const partition = "eosfuzz-0";
  const bootstrap = new Map(
    c.cached ? [[partition, { leader: name(c.cached.leaderId), leaderEpoch: c.cached.leaderEpoch }]] : [],
  );
  const metadata = new ClientMetadata(unusedContext(), "conform", {
    brokers: ["broker-0", "broker-1", "broker-2"],
    bootstrap,
    config: { retryBackoffMs: 100, requestTimeoutMs: 30_000 },
  });
  const updated = metadata.updatePartitionLeadership(
    new Map([[partition, { leaderId: name(c.incoming.leaderId), leaderEpoch: c.incoming.leaderEpoch }]]),
  );
  const after = metadata.leaderOf(partition);
  const id = after?.leader ? Number(after.leader.slice("broker-".length)) : -1;
  return { updated: updated.includes(partition), leaderId: id, leaderEpoch: after?.leaderEpoch ?? -1 };
}

/** A ClusterContext whose simulation and network the comparison never reaches (the cache alone is compared). */
function unusedContext(): ClusterContext {
  const fail = (): never => {
    throw new Error("the leader-discovery comparison uses no simulation");
  };
  const handler = { get: fail };
  return {
    sim: new Proxy({}, handler),
    net: new Proxy({}, handler),
    choices: { stream: () => new Proxy({}, handler) },
    ghost: new Proxy({}, handler),
    config: new Proxy({}, handler),
  } as unknown as ClusterContext;
}
