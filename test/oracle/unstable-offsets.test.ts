import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { PartitionLog } from "../../src/kafka/broker/partition-log.js";
import { MemberIds } from "../../src/kafka/coordinator/group/member-ids.js";
import { Errors } from "../../src/kafka/common/errors.js";
import {
  DEFAULT_GROUP_COORDINATOR_OPTIONS,
  DEFAULT_OFFSET_METADATA_MAX_BYTES,
  GroupCoordinatorShard,
} from "../../src/kafka/coordinator/group/group-coordinator-shard.js";
import { releaseProfile } from "../../src/kafka/release.js";
import { renderStory } from "../../src/oracle/story.js";
import { loadScenario, resolveScenario } from "../../src/scenario/loader.js";
import { semanticProblems } from "../../src/scenario/semantic-checks.js";

/**
 * KAFKA-16371's lasting hang (BUG-ZOO Z35): a plain OffsetCommit refused for one partition's metadata
 * leaves that partition staged under the bug, and the final check reports the committed offset that
 * require_stable can never read; fixed, nothing is staged and the check is silent.
 */
const PLAIN = { groupId: "plain-app", memberId: "", groupInstanceId: null, generationId: -1 };

function shard(pendingOffsetsKeepRejectedPartitions: boolean): GroupCoordinatorShard {
  const flags = releaseProfile("4.2.1").flags;
  const log = new PartitionLog("__consumer_offsets-0", () => flags);
  const config = {
    sessionTimeoutMs: 100,
    rebalanceTimeoutMs: 200,
    partitions: ["input-0", "input-1"],
    memberIds: new MemberIds(),
  };
  return new GroupCoordinatorShard(0, log, config, {
    ...DEFAULT_GROUP_COORDINATOR_OPTIONS,
    pendingOffsetsKeepRejectedPartitions,
  });
}

const TOO_LARGE = "m".repeat(DEFAULT_OFFSET_METADATA_MAX_BYTES + 1);

describe("committed offsets require_stable cannot read (KAFKA-16371)", () => {
  it("the bug stages the refused partition for ever; fixed, require_stable reads the last written offset", () => {
    for (const bug of [true, false]) {
      const s = shard(bug);
      const commit = [
        { partition: "input-0" as const, offset: 5, metadata: "ok" },
        { partition: "input-1" as const, offset: 7, metadata: TOO_LARGE },
      ];
      expect(s.commitOffsets(PLAIN, commit)).toBe(Errors.OFFSET_METADATA_TOO_LARGE);
      const fetched = s.fetchOffsets("plain-app", ["input-0", "input-1"], true);
      expect(fetched[0]).toMatchObject({ offset: 5, errorCode: Errors.NONE });
      expect(fetched[1]?.errorCode).toBe(bug ? Errors.UNSTABLE_OFFSET_COMMIT : Errors.NONE);
      expect(s.offsets.unstableWithoutTransaction()).toEqual(
        bug ? [{ groupId: "plain-app", partition: "input-1" }] : [],
      );
      // The stage lasts until a commit of that partition is written (GroupMetadata.onOffsetCommitAppend
      // removes a stage equal to what it wrote): a consumer stuck on require_stable never sends one.
      expect(s.commitOffsets(PLAIN, [{ partition: "input-0", offset: 6, metadata: "ok" }])).toBe(Errors.NONE);
      expect(s.fetchOffsets("plain-app", ["input-1"], true)[0]?.errorCode).toBe(
        bug ? Errors.UNSTABLE_OFFSET_COMMIT : Errors.NONE,
      );
      expect(s.commitOffsets(PLAIN, [{ partition: "input-1", offset: 8, metadata: "ok" }])).toBe(Errors.NONE);
      expect(s.fetchOffsets("plain-app", ["input-1"], true)[0]).toMatchObject({ offset: 8, errorCode: Errors.NONE });
      expect(s.offsets.unstableWithoutTransaction()).toEqual([]);
    }
  });

  it("a run of plain committers: the bug shows the hang with the refused commit in its story, the fixed model does not", () => {
    const scenario = resolveScenario("bugs/plain-committers");
    const on = runSeed(
      runConfigFor(scenario, { pendingOffsetsKeepRejectedPartitions: true }),
      { seed: 0 },
      {
        recordTrace: true,
      },
    );
    const hang = on.violations.find((v) => v.kind === "hanging-transaction");
    expect(hang?.summary).toMatch(
      /^group plain-app: OffsetFetch\(require_stable\) of input-\d answers UNSTABLE_OFFSET_COMMIT/,
    );
    expect(renderStory(on.trace ?? [], hang as NonNullable<typeof hang>).join("\n")).toMatch(
      /refuses part of an OffsetCommit of group plain-app: OFFSET_METADATA_TOO_LARGE/,
    );
    const off = runSeed(runConfigFor(scenario, {}), { seed: 0 });
    expect(off.violations).toEqual([]);
  });

  it("a scenario's committers commit to a group of their own: the processors' group is refused", () => {
    const loaded = loadScenario("bugs/plain-committers").scenario;
    const processing = loaded.processing as NonNullable<typeof loaded.processing>;
    const committers = processing.committers as NonNullable<typeof processing.committers>;
    const problems = (groupId: string) =>
      semanticProblems({ ...loaded, processing: { ...processing, committers: { ...committers, groupId } } })
        .filter((p) => p.path.join(".") === "processing.committers.groupId")
        .map((p) => p.message);
    expect(problems(processing.groupId)).toEqual([`expected a group other than the processors' ("eos-app")`]);
    expect(problems("plain-app")).toEqual([]);
  });
});
