import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_WRITE_WINDOWS } from "../../../src/github/writeBudget.js";
import type { FeedbackOp } from "../../../src/payloads.js";
import type { LaneEntry } from "../../../src/status/feedbackLanes.js";
import { processFeedback, type FeedbackPorts } from "../../../src/status/processFeedback.js";
import { nockGitHub, V3, type GitHubApi } from "../../support/nockGitHub.js";
import { storeRedis } from "../../support/storeRedis.js";

const { freshStore } = storeRedis();
const COMMENTS = `${V3}/repos/acme/widgets/issues/7/comments`;

describe("a lane entry's writes", () => {
  let github: GitHubApi | undefined;
  afterEach(() => github?.done());

  const entryOf = (ops: FeedbackOp[], progress = 0): LaneEntry => ({
    id: "acme/widgets#7-test",
    lane: "acme/widgets#7",
    installationId: 4242,
    repo: "acme/widgets",
    issue: 7,
    ops: JSON.stringify(ops),
    progress,
    dueAt: 0,
  });

  it("save progress after a comment with ops after it, so a retry posts it once; not after the last op, which the entry's end records", async () => {
    github = nockGitHub();
    const installation = github.installation();
    const services = {
      ...freshStore(),
      events: { notify: () => undefined },
      log: pino({ level: "silent" }),
      config: { githubWrites: DEFAULT_WRITE_WINDOWS },
      github: { installation: () => installation.octokit() },
    } as unknown as FeedbackPorts;
    const posted: string[] = [];
    const body = (b: { body: string }) => (posted.push(b.body), true);
    github.scope.post(COMMENTS, body).reply(201, { id: 1 });
    github.scope.post(COMMENTS, body).reply(500, { message: "Server Error" });
    github.scope.post(COMMENTS, body).reply(201, { id: 2 });
    const ops: FeedbackOp[] = [
      { type: "comment", body: "first" },
      { type: "comment", body: "second" },
    ];

    const saved: number[] = [];
    await expect(processFeedback(services, entryOf(ops), async (done) => void saved.push(done))).rejects.toMatchObject({ status: 500 });
    expect(saved).toEqual([1]);
    // The retry goes on from the saved progress, and saves none after the entry's last op.
    expect(await processFeedback(services, entryOf(ops, 1), async (done) => void saved.push(done))).toBe(1);
    expect(saved).toEqual([1]);
    expect(posted).toEqual(["first", "second", "second"]);
  });
});
