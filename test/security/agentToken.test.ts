import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/build.js";
import { REPO, SecureLoop, waitFor } from "./support.js";

/**
 * Issue 7, "What the agent can touch": the agent's GITHUB_TOKEN is an installation token narrowed
 * to the one repository (and the configured permissions, read-only by default), revoked when its round ends; it is never logged, and
 * output excerpts posted to GitHub are masked, so an agent that prints its token leaks it nowhere.
 */
describe("security: the agent's token", { timeout: 60_000 }, () => {
  let loop: SecureLoop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  it("works on its own repository only, is revoked when its round ends, and would expire within the hour", async () => {
    await ensureBuilt();
    loop = await SecureLoop.start();
    // Same installation, same owner: only the narrowing keeps the token out.
    loop.sim.createIssue("acme/gadgets", { title: "Another repository", body: "x", author: "maintainer" });
    const { issue } = await loop.dispatch("Probe [mode:probe] [other:acme/gadgets]");
    const run = await loop.run(issue, 0);
    const probe = await waitFor("the probe's result", () => {
      try {
        return JSON.parse(readFileSync(join(loop!.out, `probe-${run.pid}.json`), "utf8")) as Record<string, number>;
      } catch {
        return undefined;
      }
    });
    // It reads its own issue and writes nothing anywhere: its asks and comments go through the app (issue 37).
    expect(probe).toEqual({ ownRead: 200, own: 403, foreignComment: 404, foreignIssue: 404 });
    expect(loop.sim.comments("acme/gadgets", 1)).toEqual([]);

    // The round's token is its own and revoked when the round ends: GitHub refuses it from then on.
    const token = run.env.GITHUB_TOKEN!;
    await waitFor("GitHub to refuse the round's token after the round", async () => {
      const response = await fetch(`${loop!.sim.apiUrl}/repos/${REPO}/issues/${issue}`, { headers: { authorization: `token ${token}` } });
      return response.status === 401;
    });
    const issued = await loop.app.services.github.agentToken(loop.installationId, REPO);
    expect(issued.token).not.toBe(token);
    expect(issued.expiresAt).toBeGreaterThan(Date.now());
    expect(issued.expiresAt).toBeLessThanOrEqual(Date.now() + 60 * 60 * 1000);
    expect(loop.logs.join("\n")).not.toContain(token);
  });

  it("an agent that prints its token and fails: the status comment and the retry question show it masked; no log line has it", async () => {
    loop = await SecureLoop.start({ env: { AGENT_MAX_ATTEMPTS: "1" } });
    const { issue } = await loop.dispatch("Leak [mode:leak]");
    const run = await loop.run(issue, 0);
    const token = run.env.GITHUB_TOKEN!;
    expect(token).toMatch(/^ghs_/);
    const question = await waitFor("the attempts_exhausted question", () => loop!.appComments(issue).find((c) => c.body.includes("Last output lines")));
    await waitFor("the failure in the status comment", () => loop!.statusBody(issue).includes("failed (exit 1)"));
    expect(question.body).toContain("my token is ***");
    expect(loop.statusBody(issue)).toContain("my token is ***");
    expect(loop.statusBody(issue)).toContain("Authorization: Bearer ***");
    for (const comment of loop.comments(issue)) expect(comment.body).not.toContain(token);
    expect(loop.entries().some((e) => e.msg === "agent exited")).toBe(true); // the capture works
    expect(loop.logs.join("\n")).not.toContain(token);
  });
});
