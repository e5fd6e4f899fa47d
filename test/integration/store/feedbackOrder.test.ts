import { describe, expect, it } from "vitest";
import { storeRedis } from "../../support/storeRedis.js";
import { ref } from "./support.js";

const { redis, freshStore } = storeRedis();

describe("FeedbackOrder: whose turn it is to write to an issue", () => {
  it("is the oldest queued job's; a later job waits behind it, with the time it was put off until", async () => {
    const { feedbackOrder } = freshStore();
    await feedbackOrder.enqueueFeedback(ref, "first");
    await feedbackOrder.enqueueFeedback(ref, "second");
    await feedbackOrder.enqueueFeedback(ref, "first"); // queued again (a retried sendFeedback): keeps its place
    expect(await feedbackOrder.turnOf(ref, "first")).toEqual({ kind: "mine" });
    expect(await feedbackOrder.turnOf(ref, "second")).toEqual({ kind: "behind", head: "first", dueAt: undefined });
    await feedbackOrder.feedbackPutOff(ref, "first", 1_900_000_000_000);
    expect(await feedbackOrder.turnOf(ref, "second")).toEqual({ kind: "behind", head: "first", dueAt: 1_900_000_000_000 });
    await feedbackOrder.feedbackDone(ref, "first");
    expect(await feedbackOrder.turnOf(ref, "second")).toEqual({ kind: "mine" });
  });

  it("is nobody's order for a job that is not in it, whether the issue has others queued or none", async () => {
    const { feedbackOrder } = freshStore();
    expect(await feedbackOrder.turnOf(ref, "stray")).toEqual({ kind: "unordered" });
    await feedbackOrder.enqueueFeedback(ref, "queued");
    expect(await feedbackOrder.turnOf(ref, "stray")).toEqual({ kind: "unordered" });
    await feedbackOrder.feedbackDone(ref, "queued");
    expect(await feedbackOrder.turnOf(ref, "queued")).toEqual({ kind: "unordered" });
  });

  it("forgets a finished job's put-off time with it", async () => {
    const { feedbackOrder } = freshStore();
    await feedbackOrder.enqueueFeedback(ref, "late");
    await feedbackOrder.feedbackPutOff(ref, "late", 1_900_000_000_000);
    await feedbackOrder.feedbackDone(ref, "late");
    expect(await redis().exists(feedbackOrder.orderKey(ref), feedbackOrder.dueKey(ref))).toBe(0);
  });
});
