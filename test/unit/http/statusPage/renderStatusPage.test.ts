import { describe, expect, it } from "vitest";
import { renderStatusPage } from "../../../../src/http/statusPage/renderStatusPage.js";
import { countGates, viewGate, type GateView } from "../../../../src/observe/gateView.js";
import { gateFixture } from "../../../support/gates.js";

const T0 = Date.parse("2025-01-01T12:00:00Z");
const report = (gates: GateView[]) => ({ generatedAt: new Date(T0 + 600_000).toISOString(), gates, counts: countGates(gates) });

const BWRAP = { mode: "bwrap" as const, problem: undefined };

describe("renderStatusPage", () => {
  it("shows prompts, options, defaults, age, time left and links", () => {
    const view = viewGate(gateFixture({ ask: { timeoutSeconds: 3600, context: "Migrating." } }), T0 + 600_000, "Add a cache");
    const page = renderStatusPage(report([view]), "NONCE", BWRAP);
    expect(page).toContain("<title>Escalation: 1 open gate</title>");
    expect(page).toContain('<section class="repo" data-repo="acme/widgets">');
    expect(page).toContain('<a href="https://github.com/acme/widgets/issues/12" rel="noreferrer noopener" target="_blank">#12 Add a cache</a>');
    expect(page).toContain("Which database should the cache use?");
    expect(page).toContain("<li>Postgres</li>");
    expect(page).toContain('<li class="default">SQLite <em>(default)</em></li>');
    expect(page).toContain('asked <span class="age">10m</span> ago');
    expect(page).toContain('<span class="left">50m left</span>');
    expect(page).toContain('<p class="context">Migrating.</p>');
    expect(page).toContain('href="https://github.com/acme/widgets/issues/12#issuecomment-4711"');
    expect(page).toContain('<script nonce="NONCE">');
    expect(page).toContain("1 open · 0 overdue · 0 without timeout · updated 12:10:00 UTC");
  });

  it("links the main view and the inbox, and shows an ask's paths and an approval's tally", () => {
    const asked = viewGate(gateFixture({ id: "1", ask: { paths: ["src/db/", "src/cache.ts"] } }), T0 + 600_000);
    const approval = viewGate(
      gateFixture({ id: "2", ask: { kind: "approval", approvers: 2, questions: [{ text: "Deploy v2?" }] }, approvalRule: { required: 2, policy: "any-deny" } }),
      T0 + 600_000,
      undefined,
      [],
      [{ login: "alice", vote: "approve", at: T0, commentId: 9 }],
    );
    const page = renderStatusPage(report([asked, approval]), "N", BWRAP);
    expect(page).toContain('<nav><a href="/escalation" aria-current="page">Open gates</a><a href="/escalation?by=answerer">Inbox</a>');
    expect(page).toContain('<form method="post" action="/logout"><button type="submit">Sign out</button></form></nav>');
    expect(page).toContain('<p class="paths">About: <code>src/db/</code>, <code>src/cache.ts</code></p>');
    expect(page).toContain('<p class="tally">1 of 2 approvals: @alice; waiting for 1 more from anyone allowed on the repository</p>');
    expect(page.match(/class="tally"/g)).toHaveLength(1);
    const inbox = renderStatusPage({ ...report([asked]), byAnswerer: [] }, "N", BWRAP);
    expect(inbox).toContain('<a href="/escalation">Open gates</a><a href="/escalation?by=answerer" aria-current="page">Inbox</a>');
  });

  it("shows a gate whose reminder ladder ran out as overdue since then, and counts it", () => {
    const view = viewGate({ ...gateFixture(), overdueAt: T0 + 300_000 }, T0 + 600_000);
    const page = renderStatusPage(report([view]), "N", BWRAP);
    expect(page).toContain('<span class="left overdue">overdue since 2025-01-01 12:05 UTC (reminders ran out)</span>');
    expect(page).toContain("1 open · 1 overdue · 0 without timeout");
  });

  it("escapes everything that comes from an agent or an issue", () => {
    const xss = `<img src=x onerror="alert(1)">`;
    const view = viewGate(
      gateFixture({
        repo: "acme/widgets",
        askUrl: `javascript:alert(1)//#"><script>`,
        askedBy: xss,
        ask: {
          kind: "question",
          context: `</p><script>alert(2)</script>`,
          questions: [{ text: xss, options: [`<b>bold</b>`, `"quoted"`], default: `"quoted"` }],
        },
      }),
      T0,
      `</title><script>alert(3)</script>`,
    );
    const page = renderStatusPage(report([view]), "N", BWRAP);
    expect(page).not.toContain("<img");
    expect(page).not.toContain("<script>alert");
    expect(page).not.toContain("<b>bold</b>");
    expect(page).not.toContain("javascript:");
    expect(page).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(page).toContain("&lt;/title&gt;&lt;script&gt;alert(3)&lt;/script&gt;");
    expect(page).toContain("&lt;b&gt;bold&lt;/b&gt;");
    // Exactly one script element: the page's own.
    expect(page.match(/<script/g)).toHaveLength(1);
  });

  it("shows where agents run, flagged when unsandboxed or when the sandbox cannot start", () => {
    expect(renderStatusPage(report([]), "N", BWRAP)).toContain('<p id="sandbox" class="meta">Agents run in the bubblewrap sandbox (AGENT_SANDBOX=bwrap).</p>');
    expect(renderStatusPage(report([]), "N", { mode: "none", problem: undefined })).toMatch(
      /<p id="sandbox" class="overdue" role="status">Agents run unsandboxed \(AGENT_SANDBOX=none\)/,
    );
    const failing = renderStatusPage(report([]), "N", { mode: "bwrap", problem: "The agent sandbox (AGENT_SANDBOX=bwrap) cannot start: <no userns>." });
    expect(failing).toContain("cannot start: &lt;no userns&gt;. Rounds are refused until it can start.");
  });

  it("says when nothing is open", () => {
    const page = renderStatusPage(report([]), "N", BWRAP);
    expect(page).toContain('<p class="empty">No open gates.</p>');
    expect(page).toContain("<title>Escalation: 0 open gates</title>");
  });
});
