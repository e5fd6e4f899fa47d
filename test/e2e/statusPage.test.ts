import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../src/config/projectRoot.js";
import { askedGate, recordingAgent } from "../support/flow.js";
import { gateFixture, newGate } from "../support/gates.js";
import { REPO, startLoop, waitFor, type Loop } from "../support/harness.js";
import { requirePrograms } from "../support/programs.js";

const CHROMIUM = "/usr/bin/chromium";
const TOKEN = "status-page-admin-token-0123456789";
const SCREENSHOT = join(projectRoot, "test-artifacts", "status-page.png");

let loop: Loop;
let context: BrowserContext;
let profile: string;
let gate: { issue: number; gateId: string };
let pathGate: { issue: number; gateId: string };
let approval: { issue: number; gateId: string };

/** An approval gate through the simulator: the agent asks for two approvals and @maintainer gives one. */
async function approvalWithOneVote(): Promise<{ issue: number; gateId: string }> {
  const asked = await askedGate(loop, "Ship v2 [mode:approval]");
  loop.sim.comment(REPO, asked.issue, "maintainer", "LGTM");
  await waitFor("the vote's acknowledgement", () =>
    loop.sim.comments(REPO, asked.issue).find((c) => c.user.login === loop.sim.botLogin && c.body.includes("Approvals 1/2")),
  );
  return asked;
}

beforeAll(async () => {
  // A missing browser must fail the suite, not skip it: the page is only tested here.
  requirePrograms(CHROMIUM);
  profile = mkdtempSync(join(tmpdir(), "esc-chromium-"));
  loop = await startLoop({ ...recordingAgent().env, ADMIN_TOKEN: TOKEN });
  // The browser starts while the agents ask their questions through the simulator.
  [context, gate, pathGate, approval] = await Promise.all([
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
      viewport: { width: 1100, height: 800 },
    }),
    askedGate(loop),
    askedGate(loop, "Cache the lookups [mode:ask-path]"),
    approvalWithOneVote(),
  ]);
}, 90_000);

afterAll(async () => {
  await Promise.all([context?.close(), loop?.close()]);
  if (profile) rmSync(profile, { recursive: true, force: true });
});

const sessionCookies = async () => (await context.cookies(loop.app.url)).filter((c) => c.name === "escalation_session");

describe("the status page in headless Chromium", () => {
  it("sends a browser to the login form, signs in with a session cookie, lists the gates with paths and tallies, and refreshes itself", async () => {
    const { issue, gateId } = gate;
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));

    // Not signed in: the page sends the browser to the form, which comes back to it.
    expect((await page.goto(`${loop.app.url}/escalation`))?.status()).toBe(200);
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/login?next=%2Fescalation");
    expect(await page.title()).toBe("Escalation: sign in");
    await page.locator("#token").fill(TOKEN);
    const [response] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === "/escalation"),
      page.locator("button[type=submit]").click(),
    ]);
    expect(response.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe("/escalation");
    expect(new URL(page.url()).search).toBe("");
    // The cookie is a signed session, not the token, and scripts cannot read it.
    const [cookie] = await sessionCookies();
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/", secure: false });
    expect(cookie!.value).not.toContain(TOKEN);
    expect(await page.evaluate("document.cookie")).toBe("");

    expect(await page.title()).toBe("Escalation: 3 open gates");
    const card = page.locator(`#gate-${gateId}`);
    expect(await card.isVisible()).toBe(true);
    expect(await page.locator("section.repo h2").first().textContent()).toBe("acme/widgets 3");
    const heading = card.locator("h3 a");
    expect(await heading.textContent()).toBe(`#${issue} Add a cache`);
    expect(await heading.getAttribute("href")).toBe(`${loop.sim.url}/acme/widgets/issues/${issue}`);
    expect(await card.locator(".question .text").textContent()).toBe("Which database should the cache use?");
    expect(await card.locator(".options li").allTextContents()).toEqual(["Postgres", "SQLite"]);
    expect(await card.locator(".meta").textContent()).toMatch(/^question · round 0 · asked \d+s ago by escalation\[bot\] · no timeout$/);
    expect(await card.locator(".links a").getAttribute("href")).toBe(`${loop.sim.url}/acme/widgets/issues/${issue}#issuecomment-${gateId}`);
    expect(await card.locator(".paths").count()).toBe(0);
    // The question asked about a path shows it; the approval shows its tally and who it waits for.
    expect(await page.locator(`#gate-${pathGate.gateId} .paths`).textContent()).toBe("About: src/db/cache.ts");
    const tally = page.locator(`#gate-${approval.gateId} .tally`);
    expect(await tally.textContent()).toBe("1 of 2 approvals: @maintainer; waiting for 1 more from anyone with write access");
    expect(await page.locator(`#gate-${approval.gateId} .kind`).textContent()).toBe("approval");

    // A gate opened after the page loaded appears without a reload (the script polls the JSON with the cookie).
    const later = gateFixture({
      id: "777001",
      repo: "acme/gadgets",
      issue: 3,
      askedAt: Date.now(),
      ask: { questions: [{ text: "Ship <b>now</b>?", options: ["yes", "no"], default: "no" }], timeoutSeconds: 3600, paths: ["lib/<b>.ts"] },
    });
    await loop.app.services.gates.openGate(newGate(later));
    await page.locator("#gate-777001").waitFor({ timeout: 8000 });
    expect(await page.locator("#gate-777001 .question .text").textContent()).toBe("Ship <b>now</b>?");
    expect(await page.locator("#gate-777001 .paths").textContent()).toBe("About: lib/<b>.ts");
    expect(await page.locator("#gate-777001 .left").textContent()).toMatch(/^(59m \d+s|1h) left$/);
    expect(await page.locator("section.repo h2").allTextContents()).toEqual(["acme/widgets 3", "acme/gadgets 1"]);
    // The redrawn approval card keeps its tally and paths stay where they were.
    expect(await tally.textContent()).toBe("1 of 2 approvals: @maintainer; waiting for 1 more from anyone with write access");
    expect(await page.locator(`#gate-${pathGate.gateId} .paths`).textContent()).toBe("About: src/db/cache.ts");
    expect(await page.locator("#summary").textContent()).toMatch(/^4 open · 0 overdue · 3 without timeout · updated \d\d:\d\d:\d\d UTC$/);
    expect(await page.title()).toBe("Escalation: 4 open gates");
    expect(await page.locator("#error").textContent()).toBe("");

    // The nav links the main view and the inbox, both ways.
    await Promise.all([page.waitForURL(/\/escalation\?by=answerer$/), page.locator("nav a", { hasText: "Inbox" }).click()]);
    expect(await page.locator("h1").textContent()).toBe("Open gates by who can answer");
    expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe("Inbox");
    await Promise.all([page.waitForURL(/\/escalation$/), page.locator("nav a", { hasText: "Open gates" }).click()]);
    expect(await page.locator("h1").textContent()).toBe("Open gates");
    expect(problems).toEqual([]);
    mkdirSync(join(projectRoot, "test-artifacts"), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(5000);
    await page.close();
  });

  it("?by=answerer shows the inbox: each who can answer with the gates waiting on them, oldest first, refreshing itself", async () => {
    const { issue, gateId } = gate;
    const owned = gateFixture({
      id: "888001",
      repo: "acme/gadgets",
      issue: 9,
      askedAt: Date.now() - 3 * 3600_000,
      ask: { questions: [{ text: "Which index?", options: ["btree", "hash"] }], paths: ["src/db/"] },
      answerers: { users: [], teams: [], codeOwners: { users: ["alice"], teams: ["acme/db-team"], paths: ["src/db/"], file: ".github/CODEOWNERS" } },
    });
    await loop.app.services.gates.openGate(newGate(owned));
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    // By repository, each card says who can answer it (the session from the first test goes along).
    expect((await page.goto(`${loop.app.url}/escalation`))?.status()).toBe(200);
    expect(await page.locator("#gate-888001 .who").textContent()).toBe("Who can answer: @alice (code owner) · @acme/db-team (code owner)");
    expect(await page.locator(`#gate-${gateId} .who`).textContent()).toBe("Who can answer: anyone with write access");
    await page.waitForTimeout(5500);
    expect(await page.locator("#gate-888001 .who").textContent()).toBe("Who can answer: @alice (code owner) · @acme/db-team (code owner)");

    expect((await page.goto(`${loop.app.url}/escalation?by=answerer`))?.status()).toBe(200);
    expect(await page.locator("h1").textContent()).toBe("Open gates by who can answer");
    const headings = await page.locator("section.answerer h2").allTextContents();
    // The three-hour-old gate comes first, under its code owners; the agents' gates under anyone with write access.
    expect(headings.slice(0, 2)).toEqual(["@acme/db-team 1", "@alice 1"]);
    expect(headings).toContain("anyone with write access to acme/widgets 3");
    const alice = page.locator('section[data-answerer="alice"]');
    expect(await alice.locator(".entry .age").textContent()).toMatch(/^3h( \d+s)?$/);
    expect(await alice.locator(".entry .via").textContent()).toBe("code owner");
    expect(await alice.locator(".entry code").first().textContent()).toBe("src/db/");
    expect(await alice.locator(".entry .text").textContent()).toBe("Which index?");
    const writers = page.locator('section[data-answerer="acme/widgets:write"]');
    expect(await writers.locator(`.entry[data-gate="${gateId}"] a`).first().textContent()).toBe(`acme/widgets#${issue} Add a cache`);

    // A gate alice owns, opened after the page loaded, appears in her group without a reload.
    const later = gateFixture({
      ...owned,
      id: "888002",
      issue: 10,
      askedAt: Date.now(),
      ask: { questions: [{ text: "Drop the old index?" }], paths: ["src/db/"] },
    });
    await loop.app.services.gates.openGate(newGate(later));
    await alice.locator('.entry[data-gate="888002"]').waitFor({ timeout: 8000 });
    expect(await alice.locator(".entry").evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-gate")))).toEqual(["888001", "888002"]);

    // ?answerer= keeps one person's groups; the JSON twin refuses a bad value, naming it.
    expect((await page.goto(`${loop.app.url}/escalation?answerer=alice`))?.status()).toBe(200);
    expect(await page.locator("section.answerer h2").allTextContents()).toEqual(["@alice 2"]);
    await page.waitForTimeout(5500);
    expect(await page.locator("section.answerer h2").allTextContents()).toEqual(["@alice 2"]);
    const bad = await page.request.get(`${loop.app.url}/escalation/api/gates?by=nobody`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(bad.status()).toBe(400);
    expect(await bad.json()).toEqual({ error: 'by: must be repo or answerer (got "nobody")' });
    expect(await page.locator("#error").textContent()).toBe("");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("refuses a ?token= URL and a wrong token in the form; signing out ends the session", async () => {
    const page = await context.newPage();
    // Even the right token, even signed in: a URL with a token is refused, never read.
    const inUrl = await page.goto(`${loop.app.url}/escalation?token=${TOKEN}`);
    expect(inUrl?.status()).toBe(400);
    const refusal = await page.locator("body").textContent();
    expect(refusal).toContain("A token in the URL (?token=) is not accepted");
    expect(refusal).toContain("or sign in at /login in a browser");
    expect(refusal).not.toContain("Which database");

    // Sign out from the page's nav: the cookie is gone and the page sends the browser to the form again.
    expect((await page.goto(`${loop.app.url}/escalation`))?.status()).toBe(200);
    expect(await sessionCookies()).toHaveLength(1);
    await Promise.all([page.waitForURL(/\/login$/), page.locator("nav button", { hasText: "Sign out" }).click()]);
    expect(await sessionCookies()).toEqual([]);
    await page.goto(`${loop.app.url}/escalation?by=answerer`);
    expect(new URL(page.url()).pathname).toBe("/login");
    expect(new URL(page.url()).searchParams.get("next")).toBe("/escalation?by=answerer");
    expect(await page.locator("body").textContent()).not.toContain("Which database");

    // A wrong token: the form again with the reason, and no cookie.
    await page.locator("#token").fill("not-the-token-at-all");
    const [wrong] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === "/login" && r.request().method() === "POST"),
      page.locator("button[type=submit]").click(),
    ]);
    expect(wrong.status()).toBe(401);
    expect(await page.locator("#login-error").textContent()).toBe("Wrong token: paste the server's ADMIN_TOKEN.");
    expect(await sessionCookies()).toEqual([]);
    // The right one lands on the view that was asked for.
    await page.locator("#token").fill(TOKEN);
    await Promise.all([page.waitForURL(/\/escalation\?by=answerer$/), page.locator("button[type=submit]").click()]);
    expect(await page.locator("h1").textContent()).toBe("Open gates by who can answer");
    await page.close();
  });
});
