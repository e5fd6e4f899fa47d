import { it } from "vitest";
import { agentRuns, askedGate, recordingAgent } from "../support/flow.js";
import { REPO, startLoop, waitFor } from "../support/harness.js";
it("timing", async () => {
  let t = Date.now();
  const laps: string[] = [];
  const lap = (what: string) => { laps.push(`${what} ${Date.now() - t}`); t = Date.now(); };
  const agent = recordingAgent();
  const loop = await startLoop(agent.env); lap("startLoop");
  const { issue } = await askedGate(loop); lap("askedGate");
  loop.sim.comment(REPO, issue, "maintainer", "2");
  await waitFor("round 1", () => agentRuns(agent.out, 1).length > 0); lap("round1");
  await loop.close(); lap("close");
  throw new Error(laps.join(" | "));
}, 60000);
