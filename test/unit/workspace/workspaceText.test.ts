import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTemplate, renderTask, type TaskInput } from "../../../src/agent/renderTask.js";
import { projectRoot } from "../../../src/config/projectRoot.js";
import { deliveryLine } from "../../../src/workspace/pullRequest.js";
import { savedLine } from "../../../src/round/workspace.js";

const input: TaskInput = {
  repo: "acme/widgets",
  round: 2,
  issue: { number: 7, title: "Add a cache", body: "Cache it.", url: "https://github.com/acme/widgets/issues/7" },
  gates: [],
};

describe("what the workspace tells the agent and the issue", () => {
  it("the task says where the code is, that nothing left is lost, that a round may run again, and how the work is delivered", async () => {
    const template = await loadTemplate(resolve(projectRoot, "templates/spawn-task.md"));
    const task = renderTask(template, { ...input, workspace: { branch: "escalation/issue-7", base: "main", pullRequest: "app" } });
    expect(task).toContain("Your working directory is a git checkout of acme/widgets on the branch `escalation/issue-7`, which starts from\n`main`");
    expect(task).toContain("`git push origin HEAD` works, to `escalation/issue-7` only");
    expect(task).toContain("whatever you left\n  uncommitted is committed and pushed to `escalation/issue-7`: nothing is lost");
    expect(task).toContain("Asking ends your turn");
    expect(task).toContain("A round may be run again");
    expect(task).toContain("a pull request from it into `main` is opened");
    expect(task).not.toContain("Someone pushed");
    const diverted = renderTask(template, {
      ...input,
      workspace: { branch: "escalation/issue-7", base: "main", divertedTo: "escalation/issue-7-round-1", pullRequest: "off" },
    });
    expect(diverted).toContain("so that work is on\n`escalation/issue-7-round-1` instead");
    expect(diverted).not.toContain("pull request");
    expect(renderTask(template, input)).not.toContain("## Where the code is");
    const agentOpens = renderTask(template, { ...input, workspace: { branch: "escalation/issue-7", base: "main", pullRequest: "agent" } });
    expect(agentOpens).toContain("Opening its pull request into `main` is yours: your `GITHUB_TOKEN` may");
    expect(agentOpens).toContain('"Closes #7"');
    expect(agentOpens).not.toContain("is opened, or the one opened before is updated");
    expect(task).not.toContain("is yours");
  });

  it("the status line says where the work went, and which pull request", () => {
    expect(savedLine({ committed: true, pushedTo: "escalation/issue-7", divertedTo: undefined, head: "a" })).toBe(" · work pushed to `escalation/issue-7`");
    expect(savedLine({ committed: true, pushedTo: "escalation/issue-7-round-1", divertedTo: "escalation/issue-7-round-1", head: "a" })).toBe(
      " · the branch had moved meanwhile, so the work was pushed to `escalation/issue-7-round-1` instead",
    );
    expect(savedLine({ committed: false, pushedTo: undefined, divertedTo: undefined, head: "a" })).toBe("");
    expect(deliveryLine({ kind: "opened", number: 8, url: "https://github.com/acme/widgets/pull/8" })).toBe(
      " · pull request #8 opened (https://github.com/acme/widgets/pull/8)",
    );
    expect(deliveryLine({ kind: "updated", number: 8, url: "u" })).toBe(" · pull request #8 updated (u)");
    expect(deliveryLine({ kind: "nothing", why: "no commits" })).toBe("");
  });
});
