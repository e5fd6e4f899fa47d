import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ASK_FILE } from "../../../src/agent/askFile.js";
import { RoundGrants } from "../../../src/channel/roundGrants.js";
import { prepareRoundInputs, type RoundInputPorts, type RoundPlan } from "../../../src/round/inputs.js";
import type { PreparedWorkspace } from "../../../src/workspace/prepareWorkspace.js";

const TOKEN = "ghs_0123456789abcdefghijABCDEFGHIJ";

let root: string;
let grants: RoundGrants;
beforeEach(async () => {
  grants = new RoundGrants();
  root = await mkdtemp(join(tmpdir(), "round-inputs-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function ports(): RoundInputPorts {
  return {
    config: { baseUrl: "https://api.github.test", serverUrl: "https://github.test", agent: { workdirRoot: root, envPassthrough: [] } },
    github: { agentToken: () => Promise.resolve({ token: TOKEN, expiresAt: 0 }) },
    sandbox: { escalate: "/opt/escalation/bin/escalate" },
    channel: { url: "http://escalation.invalid", grants },
  };
}

function plan(over: Partial<RoundPlan> = {}): RoundPlan {
  return {
    data: { installationId: 1, repo: "acme/widgets", issue: 7, trigger: { type: "dispatch", by: "alice" }, receivedAt: 0 },
    round: 2,
    issue: { title: "Cache", body: "Add a cache", url: "https://github.test/acme/widgets/issues/7", author: "alice" },
    history: [],
    notes: [],
    template: "{{repo}} round {{round}}: {{issue.title}}",
    command: { argv: ["agent", "--task", "{taskFile}", "--round", "{round}"] },
    workspace: undefined,
    pullRequest: "app",
    ...over,
  };
}

describe("the inputs a round's agent starts with", () => {
  it("without a checkout: a fresh directory under the root, the task written in it, the command and contract filled in", async () => {
    const inputs = await prepareRoundInputs(ports(), plan());
    expect(inputs.workdir.startsWith(join(root, "escalation-"))).toBe(true);
    expect(inputs.taskFile).toBe(join(inputs.workdir, "task.md"));
    expect(await readFile(inputs.taskFile, "utf8")).toBe(inputs.task);
    expect(inputs.task).toContain("acme/widgets round 2");
    expect(inputs.argv).toEqual(["agent", "--task", inputs.taskFile, "--round", "2"]);
    expect(inputs.askFile).toBe(join(inputs.workdir, ASK_FILE));
    expect(inputs.recipe).toBeUndefined();
    expect(inputs.secrets).toContain(TOKEN);
    expect(inputs.secrets).toContain(inputs.credential);
    // The round's credential names its issue and round only, and pushes nothing without a checkout.
    expect(grants.find(inputs.credential)).toEqual({ installationId: 1, repo: "acme/widgets", issue: 7, round: 2 });
    expect(inputs.env).toMatchObject({
      ESCALATION_CHANNEL_URL: "http://escalation.invalid",
      ESCALATION_CHANNEL_TOKEN: inputs.credential,
      GITHUB_TOKEN: TOKEN,
      GITHUB_REPOSITORY: "acme/widgets",
      ESCALATION_ISSUE: "7",
      ESCALATION_ROUND: "2",
      ESCALATION_TASK_FILE: inputs.taskFile,
      ESCALATION_ASK_FILE: inputs.askFile,
    });
  });

  it("in the issue's checkout: the task where the workspace keeps it, a stale ask file removed, the branch in the contract", async () => {
    const checkout = join(root, "checkout");
    await mkdir(join(checkout, ".escalation"), { recursive: true });
    await writeFile(join(checkout, ASK_FILE), "{}");
    const prepared: PreparedWorkspace = {
      checkout,
      taskFile: join(root, "task.md"),
      branch: "escalation/7",
      base: "main",
      newBranch: false,
      save: () => Promise.reject(new Error("not saved here")),
    };
    const cloneUrl = "https://github.test/acme/widgets.git";
    const workspace = { kind: "ready" as const, prepared, token: "ghs_apps_own_write_token", agentToken: TOKEN, cloneUrl, ownPullRequest: false };
    const inputs = await prepareRoundInputs(ports(), plan({ workspace }));
    expect(inputs.workdir).toBe(checkout);
    // The agent reads with its own token and never holds the app's; its pushes go to the channel, to its branch only.
    expect(inputs.env.GITHUB_TOKEN).toBe(TOKEN);
    expect(Object.values(inputs.env).join("\n")).not.toContain("ghs_apps_own_write_token");
    expect(inputs.tokens).toEqual([TOKEN, "ghs_apps_own_write_token"]);
    expect(grants.find(inputs.credential)?.push).toEqual({ branch: "escalation/7", cloneUrl, token: "ghs_apps_own_write_token" });
    const config = Object.fromEntries(
      Array.from({ length: Number(inputs.env.GIT_CONFIG_COUNT) }, (_, i) => [inputs.env[`GIT_CONFIG_KEY_${i}`], inputs.env[`GIT_CONFIG_VALUE_${i}`]]),
    );
    expect(config).toEqual({
      [`http.${cloneUrl}.extraHeader`]: `Authorization: Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString("base64")}`,
      "url.http://escalation.invalid/git/acme/widgets.git.pushInsteadOf": cloneUrl,
      "http.http://escalation.invalid/git/acme/widgets.git.extraHeader": `Authorization: Bearer ${inputs.credential}`,
    });
    expect(await readFile(join(root, "task.md"), "utf8")).toBe(inputs.task);
    await expect(stat(join(checkout, ASK_FILE))).rejects.toThrow();
    expect(inputs.env).toMatchObject({ ESCALATION_BRANCH: "escalation/7", ESCALATION_BASE: "main" });
  });
});
