import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../src/config/projectRoot.js";
import { freePort } from "../../src/redis/privateRedis.js";
import { ensureToolsBuilt } from "../support/build.js";
import { waitFor } from "../support/harness.js";
import { requirePrograms } from "../support/programs.js";

const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOT = join(projectRoot, "test-artifacts", "playground.png");
/** The agent's round trips on a busy machine: generous, the test polls. */
const AGENT_MS = 45_000;

interface Playground {
  child: ChildProcess;
  url: string;
  statusPage: string;
  inbox: string;
  adminToken: string;
  appUrl: string;
  redisPort: number;
  /** The variables of the printed `escalate status` line. */
  statusEnv: Record<string, string>;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

let playground: Playground;
let context: BrowserContext;
let profile: string;

/** `npm run playground` as a terminal runs it: its own process group, without REDIS_URL (so its own redis-server). */
async function startPlayground(): Promise<Playground> {
  await ensureToolsBuilt();
  const port = await freePort();
  let output = "";
  const child = spawn(process.execPath, [resolve(projectRoot, ".tools-build/tools/playground/main.js")], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PLAYGROUND_PORT: String(port), LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((done) =>
    child.once("exit", (code, signal) => done({ code, signal, at: Date.now() })),
  );
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  await waitFor("the playground to be up", () => output.includes("playground is up") || child.exitCode !== null, 60_000);
  expect(output, output).toContain("playground is up");
  const line = (label: string) => new RegExp(`^  ${label} +(\\S+)`, "m").exec(output)?.[1] ?? "";
  const url = line("Playground").replace(/\/$/, "");
  expect(url).toBe(`http://127.0.0.1:${port}`);
  const statusPage = line("Status page");
  return {
    child,
    url,
    statusPage,
    inbox: line("Inbox"),
    adminToken: /ADMIN_TOKEN=(\w+)/.exec(output)?.[1] ?? "",
    appUrl: new URL(statusPage).origin,
    statusEnv: Object.fromEntries([.../^ +((?:[A-Z_]+=\S+ )+)bin\/escalate status/m.exec(output)![1]!.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!])),
    redisPort: Number(/^ {2}Redis +redis:\/\/:\*\*\*@127\.0\.0\.1:(\d+)/m.exec(output)?.[1]),
    output: () => output,
    exited,
  };
}

/** Whether something listens on the loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      done(true);
    });
    socket.once("error", () => done(false));
  });
}

/** A tab that sends the printed ADMIN_TOKEN, as a script does, to read the status page without signing in. */
async function adminPage(): Promise<Page> {
  const page = await context.newPage();
  await page.setExtraHTTPHeaders({ authorization: `Bearer ${playground.adminToken}` });
  return page;
}

/** The count of issue_comment deliveries the app has queued, from its /metrics. */
async function queuedComments(page: Page): Promise<number> {
  const text = await (await page.request.get(`${playground.appUrl}/metrics`)).text();
  return Number(/^escalation_webhook_deliveries_total\{event="issue_comment",result="queued"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

beforeAll(async () => {
  requirePrograms(CHROMIUM, "redis-server");
  profile = mkdtempSync(join(tmpdir(), "esc-chromium-"));
  [playground, context] = await Promise.all([
    startPlayground(),
    chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
      viewport: { width: 1100, height: 900 },
    }),
  ]);
}, 90_000);

afterAll(async () => {
  await context?.close();
  if (playground?.child.exitCode === null && playground.child.signalCode === null) {
    // A failed stop: nothing of it may outlive the test, its data directory neither.
    process.kill(-playground.child.pid!, "SIGKILL");
    if (playground.statusEnv.DATA_DIR) rmSync(playground.statusEnv.DATA_DIR, { recursive: true, force: true });
  }
  if (profile) rmSync(profile, { recursive: true, force: true });
});

describe("npm run playground, played in headless Chromium", () => {
  it("a person opens and labels an issue, sees the agent ask, answers as the maintainer (a read-only reply is not taken) and sees the result", async () => {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));

    expect((await page.goto(`${playground.url}/`))?.status()).toBe(200);
    expect(await page.locator("h1").textContent()).toBe("acme/widgets issues");
    // No token in a link: it would land in the browser's history.
    expect(playground.statusPage).toBe(`${playground.appUrl}/escalation`);
    expect(playground.inbox).toBe(`${playground.appUrl}/escalation?by=answerer`);
    expect(await page.locator("#nav-status").getAttribute("href")).toBe(playground.statusPage);
    expect(await page.locator("#nav-inbox").getAttribute("href")).toBe(playground.inbox);

    // A new issue, typed in.
    await page.locator("#title").fill("Add a cache for the lookups");
    await page.locator("#issue-body").fill("The lookups are **slow**; cache them.\n<script>alert(1)</script>");
    await page.locator("#new-as").selectOption("maintainer");
    await page.locator("#open-issue").click();
    await page.waitForURL(`${playground.url}/acme/widgets/issues/1?as=maintainer`);
    expect(await page.locator("h1 .title").textContent()).toBe("Add a cache for the lookups");
    expect(await page.locator("#issue-body .markdown strong").textContent()).toBe("slow");
    // HTML in a body is shown as text, never run.
    expect(await page.locator("#issue-body .markdown").textContent()).toContain("<script>alert(1)</script>");

    // An outsider cannot label it: GitHub refuses, and the page says so.
    await page.locator("#as").selectOption("outsider");
    await page.locator("#label-agent").click();
    await page.waitForURL(/as=outsider/);
    expect(await page.locator("#notice").textContent()).toMatch(/^@outsider could not add the agent label to #1: GitHub answered 403 /);
    expect(await page.locator("#labels").textContent()).toBe("Labels: No labels");

    // The maintainer labels it `agent`: the sample agent runs and asks; the page shows the ask as it arrives.
    await page.locator("#as").selectOption("maintainer");
    await page.locator("#label-agent").click();
    await page.waitForURL(/as=maintainer/);
    const ask = page.locator("li.comment.bot", { hasText: "The agent needs your input" });
    await ask.waitFor({ timeout: AGENT_MS });
    expect(await ask.locator("h3").textContent()).toBe("🙋 The agent needs your input");
    expect(await ask.locator(".markdown > p > strong").first().textContent()).toBe("Which database should the cache use?");
    expect(await ask.locator("ol li").allTextContents()).toEqual(["Postgres", "SQLite"]);
    expect(await ask.locator(".author").textContent()).toBe("@escalation-playground[bot]");
    expect(await ask.locator(".bot-badge").textContent()).toBe("bot");
    // The hidden marker is not shown, as on GitHub.
    expect(await ask.locator(".markdown").innerHTML()).not.toMatch(/<!--|escalation:ask/);
    await page.locator('#labels [data-label="awaiting-human"]').waitFor({ timeout: AGENT_MS });
    // The printed `escalate status` line reads the playground's Redis.
    const { stdout } = await promisify(execFile)(resolve(projectRoot, "bin/escalate"), ["status", "--by", "answerer"], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...playground.statusEnv },
    });
    expect(stdout).toContain("anyone with write access to acme/widgets · 1 waiting");
    expect(stdout).toContain("Which database should the cache use?");
    // The status page's "Answer on GitHub" opens the thread here, at the ask.
    const status = await adminPage();
    expect((await status.goto(playground.statusPage))?.status()).toBe(200);
    const answerLink = status.locator("article.gate .links a").first();
    expect(await answerLink.textContent()).toBe("Answer on GitHub");
    const askUrl = (await answerLink.getAttribute("href"))!;
    expect(askUrl).toMatch(new RegExp(`^${playground.url}/acme/widgets/issues/1#issuecomment-\\d+$`));
    expect((await status.goto(askUrl))?.status()).toBe(200);
    expect(await status.locator(`#${askUrl.split("#")[1]} h3`).textContent()).toBe("🙋 The agent needs your input");
    await status.close();

    // A read-only collaborator replies first; the app queues the delivery, and later takes the maintainer's answer, not this one.
    const queuedBefore = await queuedComments(page);
    await page.locator("#as").selectOption("reader");
    await page.locator("#comment-body").fill("Postgres");
    await page.locator("#comment").click();
    await page.waitForURL(/as=reader/);
    expect(await page.locator('li.comment[data-author="reader"] .markdown').textContent()).toBe("Postgres");
    await waitFor("the app to queue the reader's reply", async () => (await queuedComments(page)) > queuedBefore, 20_000);
    expect(await page.locator('#labels [data-label="awaiting-human"]').count()).toBe(1);

    await page.locator("#as").selectOption("maintainer");
    await page.locator("#comment-body").fill("SQLite, keep it embedded");
    await page.locator("#comment").click();
    await page.waitForURL(/as=maintainer/);
    const done = page.locator("li.comment.bot", { hasText: "Done:" });
    await done.waitFor({ timeout: AGENT_MS });
    // The agent's words, posted by the app and marked as the agent's.
    expect(await done.locator(".markdown blockquote").textContent()).toContain("The agent wrote (round 1):");
    expect(await done.locator(".markdown").textContent()).toContain("Done: the cache now uses SQLite, as decided on this issue. (round 1)");
    expect(await done.locator("p strong").last().textContent()).toBe("SQLite");
    const ack = page.locator("li.comment.bot", { hasText: "Recorded as" });
    expect(await ack.locator(".markdown p").first().textContent()).toBe("📝 @maintainer: Recorded as 2. SQLite, with the note keep it embedded.");
    expect(await ack.locator("strong").first().textContent()).toBe("2. SQLite");
    expect(await ack.locator("code").first().textContent()).toBe("keep it embedded");
    expect(await page.locator("li.comment.bot", { hasText: "@reader" }).count()).toBe(0);
    await waitFor("the awaiting-human label to come off", async () => (await page.locator('#labels [data-label="awaiting-human"]').count()) === 0, AGENT_MS);
    expect(await page.locator("#labels .label").allTextContents()).toEqual(["agent"]);
    expect(await page.locator("li.event").allTextContents()).toEqual([
      expect.stringMatching(/^@maintainer added the agent +label at /),
      expect.stringMatching(/^@escalation-playground\[bot\] added the awaiting-human +label at /),
      expect.stringMatching(/^@escalation-playground\[bot\] removed the awaiting-human +label at /),
    ]);
    expect(await page.locator("li.comment").evaluateAll((items) => items.map((li) => li.getAttribute("data-author")))).toEqual([
      "maintainer",
      "escalation-playground[bot]",
      "reader",
      "maintainer",
      "escalation-playground[bot]",
      "escalation-playground[bot]",
    ]);

    mkdirSync(join(projectRoot, "test-artifacts"), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    const png = readFileSync(SCREENSHOT);
    expect(png.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
    expect(png.length).toBeGreaterThan(20_000);

    // The inbox link: no gate is left waiting.
    const inbox = await adminPage();
    expect((await inbox.goto((await page.locator("#nav-inbox").getAttribute("href"))!))?.status()).toBe(200);
    expect(await inbox.locator("h1").textContent()).toBe("Open gates by who can answer");
    expect(await inbox.title()).toBe("Escalation: 0 open gates");
    await inbox.close();
    expect(problems).toEqual([]);
    await page.close();
  }, 150_000);

  it("refuses a form posted from another site or without the page's token", async () => {
    const page = await context.newPage();
    await page.goto(`${playground.url}/acme/widgets/issues/1`);
    const token = await page.locator('#act input[name="token"]').getAttribute("value");
    const post = (headers: Record<string, string>, form: Record<string, string>) =>
      page.request.post(`${playground.url}/-/playground/acme/widgets/issues/1`, { headers, form, maxRedirects: 0 });
    const crossSite = await post({ origin: "http://evil.invalid" }, { token: token!, as: "maintainer", action: "close" });
    expect(crossSite.status()).toBe(403);
    const noToken = await post({}, { as: "maintainer", action: "close" });
    expect(noToken.status()).toBe(403);
    // A page that rebound its own name to 127.0.0.1 is same-origin with itself, and could read the token.
    const rebound = await new Promise<number>((done, fail) => {
      const form = new URLSearchParams({ token: token!, as: "maintainer", action: "close" }).toString();
      const req = request(
        `${playground.url}/-/playground/acme/widgets/issues/1`,
        { method: "POST", headers: { host: `rebound.invalid:${new URL(playground.url).port}`, "content-type": "application/x-www-form-urlencoded" } },
        (res) => {
          res.resume();
          done(res.statusCode ?? 0);
        },
      );
      req.once("error", fail);
      req.end(form);
    });
    expect(rebound).toBe(403);
    const badPerson = await post({}, { token: token!, as: "admin", action: "close" });
    expect(badPerson.status()).toBe(400);
    expect(await badPerson.text()).toBe("as: must be one of maintainer, reader, outsider");
    await page.reload();
    expect(await page.locator("#state").textContent()).toBe("Open");
    // The same form from the page itself does close it.
    await page.locator("#close").click();
    await page.waitForURL(/as=maintainer/);
    expect(await page.locator("#state").textContent()).toBe("Closed");
    await page.close();
  }, 30_000);

  it("stops on Ctrl-C: the app, the simulator and its redis-server are gone within seconds", async () => {
    expect(await listening(playground.redisPort)).toBe(true);
    const sent = Date.now();
    process.kill(-playground.child.pid!, "SIGINT");
    const { code, at } = await playground.exited;
    expect(code, playground.output()).toBe(0);
    expect(at - sent).toBeLessThan(10_000);
    expect(playground.output()).toContain("playground stopped");
    expect(await listening(Number(new URL(playground.url).port))).toBe(false);
    expect(await listening(Number(new URL(playground.appUrl).port))).toBe(false);
    expect(await listening(playground.redisPort)).toBe(false);
  }, 30_000);
});
