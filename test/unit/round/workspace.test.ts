import { describe, expect, it } from "vitest";
import { GitHubError } from "../../../src/errors.js";
import { openRoundWorkspace } from "../../../src/round/workspace.js";
import type { Services } from "../../../src/services/services.js";

/** The ports openRoundWorkspace uses, each GitHub call answered as given; the revocations recorded. */
function services(answers: { appToken: () => Promise<{ token: string }>; agentToken: () => Promise<{ token: string }>; repository: () => Promise<unknown> }) {
  const revoked: string[] = [];
  const ports = {
    config: { workspace: { root: "/nonexistent", maxBytes: 1, maxFiles: 1 } },
    github: {
      appToken: answers.appToken,
      agentToken: answers.agentToken,
      repository: answers.repository,
      identity: () => Promise.resolve({ botLogin: "escalation[bot]" }),
      installation: () => Promise.resolve({ request: () => Promise.reject(new GitHubError("Not Found", 404)) }),
      revokeAgentToken: (_installationId: number, token: string) => {
        revoked.push(token);
        return Promise.resolve(true);
      },
    },
  };
  return { ports: ports as unknown as Services, revoked };
}

const input = { installationId: 1, repo: "acme/widgets", issue: 7, round: 0, branchTemplate: "escalation/issue-{issue}", pullRequest: "app" as const };
const minted = (token: string) => () => Promise.resolve({ token, expiresAt: 0 });

describe("openRoundWorkspace: the round's two tokens", () => {
  it("a checkout GitHub refuses revokes both tokens the round minted, so neither stays valid for its hour", async () => {
    const { ports, revoked } = services({
      appToken: minted("ghs_app"),
      agentToken: minted("ghs_agent"),
      repository: () => Promise.reject(new GitHubError("Resource not accessible by integration", 403)),
    });
    expect(await openRoundWorkspace(ports, input)).toMatchObject({ kind: "refused" });
    expect(revoked.sort()).toEqual(["ghs_agent", "ghs_app"]);
  });

  it("the app's token refused (the installation lacks contents: write): the agent's, minted beside it, is revoked", async () => {
    const { ports, revoked } = services({
      appToken: () => Promise.reject(new GitHubError("The permissions requested are not granted to this installation.", 422)),
      agentToken: minted("ghs_agent"),
      repository: () => Promise.resolve({ cloneUrl: "https://github.test/acme/widgets.git", defaultBranch: "main" }),
    });
    expect(await openRoundWorkspace(ports, input)).toMatchObject({ kind: "refused", problem: expect.stringContaining("not granted") });
    expect(revoked).toEqual(["ghs_agent"]);
  });
});
