import { execFile, type ExecFileException } from "node:child_process";
import { delimiter, dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { projectRoot } from "../../../src/config/projectRoot.js";
import type { OpenGatesReport } from "../../../src/observe/gateView.js";
import { ensureBuilt } from "../../support/build.js";
import { Gates, REPO, waitFor } from "./support.js";

const TOKEN = "codeowners-inbox-admin-token-0123";

/** The real bin/escalate against the loop's Redis, as an operator runs it. */
function escalate(g: Gates, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    PATH: [dirname(process.execPath), "/usr/bin", "/bin"].join(delimiter),
    REDIS_URL: g.loop.config.redisUrl,
    REDIS_PREFIX: g.loop.config.redisPrefix,
  };
  return new Promise((resolve) => {
    execFile(join(projectRoot, "bin", "escalate"), args, { env, cwd: projectRoot, timeout: 20_000 }, (error: ExecFileException | null, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

/** Issue 9, "Answerers from CODEOWNERS" and "A cross-repository inbox": through the simulator's contents and teams API. */
describe("gates: answerers from CODEOWNERS, and the inbox", { timeout: 90_000 }, () => {
  let g: Gates | undefined;
  afterEach(async () => {
    await g?.close();
    g = undefined;
  });

  it("a code owner's reply (as a user or a team member) resumes; a non-owner with write access is refused and told who may answer; the inbox groups the gates by who can answer", async () => {
    [g] = await Promise.all([Gates.start("ask-path", { ADMIN_TOKEN: TOKEN }), ensureBuilt()]);
    for (const login of ["alice", "bob"]) {
      g.sim.addUser(login);
      g.sim.setPermission(REPO, login, "write");
    }
    g.sim.addTeamMember("acme", "db-team", "bob");
    g.sim.setFile(REPO, ".github/CODEOWNERS", ["# Owners", "*          @admin", "/src/db/   @alice @acme/db-team", ""].join("\n"));
    await g.configure("answerers:\n  from: codeowners\n");

    const owned = await g.asked("Add a cache");
    expect(owned.ask.paths).toEqual(["src/db/cache.ts"]);
    expect(owned.comment.body).toContain("_About:_ `src/db/cache.ts`");
    const team = await g.asked("Tune the cache");

    // The maintainer has write access but owns nothing under src/db/: not recorded, told who may answer, once.
    const refused = g.comment(owned.issue, "maintainer", "SQLite");
    const told = await g.reply(owned.issue, "only its code owners");
    expect(told.body).toBe(
      "@maintainer this question is about `src/db/cache.ts`, so only its code owners (`.github/CODEOWNERS`) may answer it: @alice, @acme/db-team. Your reply was not recorded.",
    );
    g.comment(owned.issue, "maintainer", "/answer 1 Postgres");
    await g.quiet();
    expect(g.replies(owned.issue).map((c) => c.id)).toEqual([told.id]);
    // /status says who can answer, without notifying them.
    g.comment(owned.issue, "maintainer", "/status");
    const status = await g.reply(owned.issue, "**Escalation status**");
    expect(status.body).toContain("Who can answer: the code owners of `src/db/cache.ts` (`.github/CODEOWNERS`): `@alice`, `@acme/db-team`.");
    expect((await g.loop.app.services.gates.getGate(String(owned.comment.id)))?.state).toBe("open");
    expect(g.runs(owned.issue, 1)).toEqual([]);
    expect(refused.id).toBeGreaterThan(owned.comment.id);

    // The inbox, from Redis alone: every open gate under each who can answer it, oldest first.
    const cli = await escalate(g, ["status", "--json", "--by", "answerer"]);
    expect(cli.stderr).toBe("");
    const report = JSON.parse(cli.stdout) as OpenGatesReport;
    expect(report.byAnswerer!.map((group) => [group.answerer.label, group.gates.map((e) => `#${e.issue} ${e.via}`)])).toEqual([
      ["@acme/db-team", [`#${owned.issue} code owner`, `#${team.issue} code owner`]],
      ["@alice", [`#${owned.issue} code owner`, `#${team.issue} code owner`]],
    ]);
    const entry = report.byAnswerer![1]!.gates[0]!;
    expect(entry).toMatchObject({
      repo: REPO,
      title: "Add a cache",
      question: "Which database should the cache use?",
      paths: ["src/db/cache.ts"],
      url: owned.comment.html_url,
    });
    expect(entry.ageSeconds).toBeGreaterThanOrEqual(report.byAnswerer![1]!.gates[1]!.ageSeconds);
    const table = await escalate(g, ["status", "--answerer", "@Alice"]);
    expect(table.stdout).toMatch(
      new RegExp(
        `^@alice · 2 waiting, oldest \\d+s\\n  \\d+s +${REPO}#${owned.issue} +code owner  ${owned.comment.html_url.replace(/[.?]/g, "\\$&")}\\n +Which database should the cache use\\? \\(src/db/cache.ts\\)\\n`,
      ),
    );
    expect(table.stdout).not.toContain("@acme/db-team");
    const bad = await escalate(g, ["status", "--by", "team"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('escalate: --by must be repo or answerer (got "team")');

    // The JSON twin takes the same filter.
    const api = await fetch(`${g.loop.app.url}/escalation/api/gates?by=answerer&answerer=acme/db-team`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const json = (await api.json()) as OpenGatesReport;
    expect(json.byAnswerer!.map((group) => [group.answerer.name, group.count])).toEqual([["acme/db-team", 2]]);
    expect(json.gates.map((gate) => gate.answerers.map((a) => `${a.name}:${a.via}`))).toEqual([
      ["alice:code owner", "acme/db-team:code owner"],
      ["alice:code owner", "acme/db-team:code owner"],
    ]);

    // alice owns the path directly; bob through @acme/db-team.
    g.comment(owned.issue, "alice", "2");
    g.comment(team.issue, "bob", "Postgres");
    const [aliceRun, bobRun] = await Promise.all([g.run(owned.issue, 1), g.run(team.issue, 1)]);
    expect(aliceRun.task).toContain("Answer from human @alice");
    expect(aliceRun.task).not.toContain("@maintainer at");
    expect(bobRun.task).toContain("Answer from human @bob");
    expect(g.replies(team.issue)).toEqual([]);
    await waitFor(
      "the inbox empty",
      async () => (await escalate(g!, ["status", "--json", "--by", "answerer"])).stdout.includes('"byAnswerer": []') || undefined,
    );
  });

  it("falls back to write access when no CODEOWNERS line owns the path, and lists the gate under its assignees and anyone with write access", async () => {
    [g] = await Promise.all([Gates.start("ask-path"), ensureBuilt()]);
    g.sim.addUser("alice");
    g.sim.setPermission(REPO, "alice", "write");
    g.sim.setFile(REPO, "CODEOWNERS", "/docs/ @alice\n");
    await g.configure("answerers:\n  from: codeowners\n");

    const { issue, comment } = await g.asked("Nobody owns the cache", { assignees: ["alice"] });
    const gate = await g.loop.app.services.gates.getGate(String(comment.id));
    expect(gate?.answerers).toEqual({ users: [], teams: [], minimumPermission: "write" });
    const report = JSON.parse((await escalate(g, ["status", "--json", "--by", "answerer"])).stdout) as OpenGatesReport;
    expect(report.byAnswerer!.map((group) => [group.answerer.label, group.gates.map((e) => e.via)])).toEqual([
      ["@alice", ["assignee"]],
      [`anyone with write access to ${REPO}`, ["permission"]],
    ]);

    g.comment(issue, "maintainer", "SQLite");
    const run = await g.run(issue, 1);
    expect(run.task).toContain("Answer from human @maintainer");
    expect(g.replies(issue)).toEqual([]);
  });

  it("who may answer (code owners and the configured) is rebuilt with the gate after a Redis wipe, from the ask's paths, CODEOWNERS and the configuration", async () => {
    [g] = await Promise.all([Gates.start("ask-path"), ensureBuilt()]);
    g.sim.addUser("alice");
    g.sim.setPermission(REPO, "alice", "write");
    g.sim.setFile(REPO, "docs/CODEOWNERS", "src/db/ @alice\n");
    await g.configure("answerers:\n  from: codeowners\n  users: [Carol]\n");
    const { issue, comment } = await g.asked("Add a cache");
    const before = (await g.loop.app.services.gates.getGate(String(comment.id)))?.answerers;
    expect(before?.codeOwners).toEqual({ users: ["alice"], teams: [], paths: ["src/db/cache.ts"], file: "docs/CODEOWNERS" });

    await g.loop.wipeRedis();
    await g.loop.restart();
    expect((await g.loop.app.services.gates.getGate(String(comment.id)))?.answerers).toEqual(before);
    g.comment(issue, "maintainer", "SQLite");
    await g.reply(issue, "only its code owners (`docs/CODEOWNERS`) and the configured answerers may answer it: @alice, @carol. Your reply was not recorded.");
    g.comment(issue, "alice", "SQLite");
    expect((await g.run(issue, 1)).task).toContain("Answer from human @alice");
  });
});
