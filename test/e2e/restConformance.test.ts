import { expect, it } from "vitest";
import { REPO, startLoop } from "../support/harness.js";

it("a loop that received a request GitHub's REST description does not document fails when closed", async () => {
  const loop = await startLoop();
  const { sim } = loop;
  const issue = sim.createIssue(REPO, { title: "Conformance", body: "", author: "maintainer" });
  const maintainer = sim.addUser("maintainer");
  const response = await fetch(`${sim.apiUrl}/repos/${REPO}/issues/${issue.number}/comments`, {
    method: "POST",
    headers: { authorization: `token ${maintainer.token}`, "content-type": "application/json" },
    body: JSON.stringify({ body: "Pinned?", pinned: true }),
  });
  // GitHub would accept it and ignore the field; the loop must not.
  expect(response.status).toBe(201);
  expect(loop.restViolations).toEqual(["POST /repos/{owner}/{repo}/issues/{issue_number}/comments: undocumented body field body.pinned"]);
  await expect(loop.close()).rejects.toThrow(/does not document:\n {2}- POST \/repos\/\{owner\}\/\{repo\}\/issues\/\{issue_number\}\/comments/);
});
