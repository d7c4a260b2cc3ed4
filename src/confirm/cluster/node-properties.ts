/**
 * server.properties of the nodes of a real cluster on 127.0.0.1: one KRaft controller and brokers
 * with two listeners each, CLIENT (what clients bootstrap from) and INTERNAL (the inter-broker
 * listener: replication, AddPartitionsToTxn, and the WriteTxnMarkers a coordinator sends to a
 * leader, which it addresses at the leader's advertised INTERNAL endpoint). Advertising a listener
 * at another port (a proxy's) routes every connection to it through that port.
 */

export interface ControllerNode {
  nodeId: number;
  port: number;
  dataDir: string;
}

export interface BrokerNode {
  nodeId: number;
  dataDir: string;
  /** Where the broker listens. */
  clientPort: number;
  internalPort: number;
  /** What it advertises (a proxy's port, or its own). */
  advertisedClientPort: number;
  advertisedInternalPort: number;
}

export interface ClusterSettings {
  transactionStatePartitions: number;
  transactionStateReplicationFactor: number;
  transactionStateMinIsr: number;
  /** Broker settings on top of these (request.timeout.ms for the marker channel, say). */
  brokerOverrides: Readonly<Record<string, string>>;
}

function render(entries: readonly (readonly [string, string | number | boolean])[]): string {
  return `${entries.map(([k, v]) => `${k}=${v}`).join("\n")}\n`;
}

function voters(controller: ControllerNode): string {
  return `${controller.nodeId}@127.0.0.1:${controller.port}`;
}

export function controllerProperties(controller: ControllerNode): string {
  return render([
    ["process.roles", "controller"],
    ["node.id", controller.nodeId],
    // Static voters: every release from 3.3 formats and joins them the same way.
    ["controller.quorum.voters", voters(controller)],
    ["controller.listener.names", "CONTROLLER"],
    ["listeners", `CONTROLLER://127.0.0.1:${controller.port}`],
    ["listener.security.protocol.map", "CONTROLLER:PLAINTEXT"],
    ["log.dirs", controller.dataDir],
    // A lost broker is fenced in seconds, not the default 9 (a plan's kill -9 waits for it).
    ["broker.session.timeout.ms", 6000],
  ]);
}

export function brokerProperties(broker: BrokerNode, controller: ControllerNode, settings: ClusterSettings): string {
  const base: [string, string | number | boolean][] = [
    ["process.roles", "broker"],
    ["node.id", broker.nodeId],
    ["controller.quorum.voters", voters(controller)],
    ["controller.listener.names", "CONTROLLER"],
    ["listeners", `CLIENT://127.0.0.1:${broker.clientPort},INTERNAL://127.0.0.1:${broker.internalPort}`],
    [
      "advertised.listeners",
      `CLIENT://127.0.0.1:${broker.advertisedClientPort},INTERNAL://127.0.0.1:${broker.advertisedInternalPort}`,
    ],
    ["listener.security.protocol.map", "CLIENT:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT"],
    ["inter.broker.listener.name", "INTERNAL"],
    ["log.dirs", broker.dataDir],
    ["transaction.state.log.num.partitions", settings.transactionStatePartitions],
    ["transaction.state.log.replication.factor", settings.transactionStateReplicationFactor],
    ["transaction.state.log.min.isr", settings.transactionStateMinIsr],
    ["offsets.topic.num.partitions", 3],
    ["offsets.topic.replication.factor", 1],
    ["group.initial.rebalance.delay.ms", 0],
    // Topics exist because the plan made them, leaders move because the plan moved them.
    ["auto.create.topics.enable", false],
    ["auto.leader.rebalance.enable", false],
    // Small thread pools: a cluster of four JVMs shares two cores.
    ["num.network.threads", 2],
    ["num.io.threads", 2],
    ["background.threads", 2],
    ["num.recovery.threads.per.data.dir", 1],
    ["log.cleaner.threads", 1],
    ["log.cleaner.dedupe.buffer.size", 2097152],
  ];
  const overridden = new Set(Object.keys(settings.brokerOverrides));
  return render([
    ...base.filter(([k]) => !overridden.has(k)),
    ...Object.entries(settings.brokerOverrides).map(([k, v]) => [k, v] as const),
  ]);
}

/** Kafka's log4j2 configuration for one node: everything at INFO into one file. */
export function log4j2Properties(logFile: string): string {
  return render([
    ["status", "warn"],
    ["appender.file.type", "File"],
    ["appender.file.name", "file"],
    ["appender.file.fileName", logFile],
    ["appender.file.layout.type", "PatternLayout"],
    ["appender.file.layout.pattern", "[%d{yyyy-MM-dd HH:mm:ss,SSS}] %p %m (%c)%n"],
    ["rootLogger.level", "INFO"],
    ["rootLogger.appenderRef.file.ref", "file"],
    // The request log at INFO would be every request; markers are counted by the proxy instead.
    ["logger.request.name", "kafka.request.logger"],
    ["logger.request.level", "WARN"],
  ]);
}
