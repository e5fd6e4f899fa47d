import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { basicAuthorization } from "../../src/workspace/gitCredentials.js";
import { REPO, SecureLoop } from "./support.js";
import { allFiles } from "../support/files.js";

const AGENT = resolve("test/support/agents/workspace-agent.mjs");

/**
 * Issue 14: git is given the agent's token through its environment only. After a round that
 * cloned, edited and pushed, neither the token nor the header git sends holds it is in a log line
 * (at trace level), a comment, or any file of the checkout or the workspace root.
 */
describe("security: the workspace's token", { timeout: 90_000 }, () => {
  let loop: SecureLoop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  it("is in no log line, no comment and no file under the workspace root", async () => {
    const root = mkdtempSync(join(tmpdir(), "esc-ws-sec-"));
    const out = mkdtempSync(join(tmpdir(), "esc-ws-sec-out-"));
    loop = await SecureLoop.start({ env: { AGENT_WORKSPACE: "on", WORKSPACE_ROOT: root }, command: [process.execPath, AGENT, out, "{round}"], out });
    // Notified once the round's work is pushed: git is done with the checkout.
    const exited = new Promise<void>((resolve) => loop!.app.services.events.on("agent.exited", () => resolve()));
    const { issue } = await loop.dispatch("Work in the checkout");
    const record = join(out, `round-0-${REPO.replace("/", "-")}-${issue}.json`);
    await exited;
    expect(existsSync(record)).toBe(true);
    expect(await loop.sim.fileAt(REPO, `escalation/issue-${issue}`, "NOTES.md")).toBe("Asked which cache to use.\n");
    const token = (JSON.parse(readFileSync(record, "utf8")) as { env: Record<string, string> }).env.GITHUB_TOKEN!;
    expect(token).toMatch(/^ghs_/);
    const forms = [token, basicAuthorization(token).slice("Basic ".length)];
    expect(loop.entries().some((e) => e.msg === "agent exited")).toBe(true); // the capture works
    const logs = loop.logs.join("\n");
    for (const form of forms) expect(logs).not.toContain(form);
    for (const comment of loop.comments(issue)) for (const form of forms) expect(comment.body).not.toContain(form);
    const files = allFiles(root);
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const text = readFileSync(file, "latin1");
      for (const form of forms) expect(text.includes(form), file).toBe(false);
    }
  });
});
