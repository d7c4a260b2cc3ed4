import type { ListenerRouting, RealBrokerSpec } from "../cluster/real-cluster.js";
import type { ArmedRule, FaultRule } from "./fault-rules.js";
import { KafkaProxy, type ProxyEvent } from "./kafka-proxy.js";

/**
 * The proxies of one cluster: one on every broker's INTERNAL listener (all inter-broker traffic,
 * markers included), and, when asked, one on every CLIENT listener. It routes the cluster's
 * advertised listeners through them and keeps one log of what they saw, in arrival order.
 */
export class ProxySet implements ListenerRouting {
  readonly events: ProxyEvent[] = [];
  private readonly proxies = new Map<string, KafkaProxy>();
  private readonly armed = new Map<string, { proxy: KafkaProxy; rule: ArmedRule }>();

  constructor(private readonly options: { clientListeners: boolean }) {}

  async route(broker: RealBrokerSpec, listener: "CLIENT" | "INTERNAL", upstreamPort: number): Promise<number> {
    if (listener === "CLIENT" && !this.options.clientListeners) return upstreamPort;
    const proxy = await KafkaProxy.start({
      broker: broker.name,
      listener,
      upstreamPort,
      log: (e) => this.events.push(e),
    });
    this.proxies.set(`${broker.name}/${listener}`, proxy);
    return proxy.port;
  }

  proxy(broker: string, listener: "CLIENT" | "INTERNAL"): KafkaProxy {
    const p = this.proxies.get(`${broker}/${listener}`);
    if (!p) throw new Error(`no proxy on ${broker}'s ${listener} listener`);
    return p;
  }

  arm(rule: FaultRule): ArmedRule {
    const proxy = this.proxy(rule.broker, rule.listener);
    const armed = proxy.arm(rule);
    this.armed.set(rule.id, { proxy, rule: armed });
    return armed;
  }

  disarm(ruleId: string): void {
    this.armed.get(ruleId)?.proxy.disarm(ruleId);
  }

  rule(ruleId: string): ArmedRule {
    const a = this.armed.get(ruleId);
    if (!a) throw new Error(`no rule ${ruleId} armed`);
    return a.rule;
  }

  isHolding(ruleId: string): boolean {
    return this.armed.get(ruleId)?.proxy.isHolding(ruleId) ?? false;
  }

  release(ruleId: string, timeoutMs?: number) {
    const a = this.armed.get(ruleId);
    if (!a) throw new Error(`no rule ${ruleId} armed`);
    return a.proxy.release(ruleId, timeoutMs);
  }

  /** Requests seen by every proxy, by API. */
  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const p of this.proxies.values()) for (const [api, n] of p.counts) out[api] = (out[api] ?? 0) + n;
    return out;
  }

  async close(): Promise<void> {
    await Promise.all([...this.proxies.values()].map((p) => p.close()));
  }
}
