/**
 * Where new member ids come from: ClassicGroup.generateMemberId takes clientId (or the
 * group.instance.id) + "-" + a random UUID, so no coordinator ever hands out an id another
 * one handed out before, persisted or not. The model's ids are `<group>-m<n>`, numbered per group
 * across every coordinator of the cluster (one instance shared by all brokers): deterministic, and
 * as unique as Kafka's. A coordinator that took over the group after a failover therefore never
 * gives a new member the id of a member the old coordinator admitted in a join it never wrote.
 */
export class MemberIds {
  private readonly handedOut = new Map<string, number>();

  generateMemberId(groupId: string): string {
    const n = (this.handedOut.get(groupId) ?? 0) + 1;
    this.handedOut.set(groupId, n);
    return `${groupId}-m${n}`;
  }
}
