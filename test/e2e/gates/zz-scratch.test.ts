import { it } from "vitest";
import { Gates, REPO, settle, waitFor } from "./support.js";
it("probe", async () => {
  const g = await Gates.start("ask", { AGENT_CONCURRENCY: "1" });
  const { issue, comment: ask } = await g.asked("B");
  const busy = g.dispatch("A", { mode: "sleep" });
  await g.run(busy, 0);
  g.comment(issue, "maintainer", "Postgres");
  await waitFor("answered", async () => (await g.loop.app.services.store.getGate(String(ask.id)))?.state === "answered");
  g.sim.closeIssue(REPO, issue, "maintainer");
  await settle(1500);
  g.comment(busy, "maintainer", "/stop");
  await settle(4000);
  console.log("RESULT runs of closed issue round 1:", g.runs(issue, 1).length, g.sim.issue(REPO, issue).state);
  console.log(g.statusBody(issue));
  await g.close();
}, 60000);
