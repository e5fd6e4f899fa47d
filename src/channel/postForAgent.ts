import { ProtocolError } from "../errors.js";
import { renderAgentComment, MAX_AGENT_COMMENT_CHARS } from "../protocol/agentComment.js";
import { renderAskComment, validateAsk } from "../protocol/ask.js";
import type { InstallationOctokit } from "../github/octokit.js";
import { BudgetedWriter, WritesDeferred, type WriterPorts } from "../status/budgetedWriter.js";
import type { RoundGrant } from "./roundGrants.js";

/** What became of a write the agent asked for. */
export type PostOutcome =
  | { kind: "posted"; url: string }
  /** The agent's input is at fault: `message` says what to change. */
  | { kind: "invalid"; message: string }
  /** The installation's write budget is spent, or GitHub asked the app to pause: try again later. */
  | { kind: "deferred"; retryInMs: number; message: string }
  | { kind: "failed"; status?: number; message: string };

export type PostPorts = WriterPorts & { github: { installation(installationId: number): Promise<InstallationOctokit> } };

/**
 * The comment of the agent's question: validated again here (the agent's input is not trusted for
 * having passed `escalate ask`), for the grant's own round whatever it said, and rendered by the one
 * renderer of asks.
 */
export function agentAskComment(grant: RoundGrant, input: unknown): { kind: "comment"; body: string } | { kind: "invalid"; message: string } {
  try {
    const ask = validateAsk(typeof input === "object" && input !== null ? { ...input, round: grant.round } : input);
    return { kind: "comment", body: renderAskComment(ask) };
  } catch (error) {
    if (error instanceof ProtocolError) return { kind: "invalid", message: error.message.replace(/^Invalid ask: /, "") };
    throw error;
  }
}

/** The agent's question, posted by the app as its bot; its webhook then opens the gate as for any ask. */
export async function askForAgent(services: PostPorts, grant: RoundGrant, input: unknown): Promise<PostOutcome> {
  const comment = agentAskComment(grant, input);
  return comment.kind === "invalid" ? comment : postForAgent(services, grant, comment.body);
}

/** A comment of the agent's own, marked as its words and stripped of anything the loop would read. */
export async function commentForAgent(services: PostPorts, grant: RoundGrant, text: string): Promise<PostOutcome> {
  if (text.trim() === "") return { kind: "invalid", message: "The comment is empty." };
  const body = renderAgentComment(text, grant.round);
  // Measured as posted: what the rendering escapes grows.
  if (body.length > MAX_AGENT_COMMENT_CHARS)
    return { kind: "invalid", message: `The comment is ${body.length} characters as posted; at most ${MAX_AGENT_COMMENT_CHARS} are. Shorten it.` };
  return postForAgent(services, grant, body);
}

/** One comment on the grant's issue, within the installation's write budget. */
export async function postForAgent(services: PostPorts, grant: RoundGrant, body: string): Promise<PostOutcome> {
  const [owner, repo] = grant.repo.split("/") as [string, string];
  try {
    const octokit = await services.github.installation(grant.installationId);
    const writer = new BudgetedWriter(services, grant.installationId);
    const { data } = await writer.send(() =>
      octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", { owner, repo, issue_number: grant.issue, body }),
    );
    return { kind: "posted", url: data.html_url };
  } catch (error) {
    if (error instanceof WritesDeferred)
      return { kind: "deferred", retryInMs: error.retryInMs, message: `The app may not write on GitHub now (${error.message}).` };
    const status = (error as { status?: number }).status;
    services.log.warn({ err: error, repo: grant.repo, issue: grant.issue, status }, "could not post the agent's comment");
    return { kind: "failed", status, message: `GitHub refused the comment on ${grant.repo}#${grant.issue}: ${(error as Error).message}` };
  }
}
