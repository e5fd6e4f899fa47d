import { handleInbound, type RebuildIssue } from "../gates/handleInbound.js";
import type { InboundEvent } from "../payloads.js";
import type { Services } from "../services/services.js";
import type { IssueSnapshot } from "./issueSnapshot.js";
import { reconcileIssue } from "./reconcileIssue.js";
import type { Replay } from "./replayedEvents.js";

/**
 * The one path every event takes, a webhook's or a replayed one: handleInbound with reconciliation
 * as its way to rebuild an issue Redis does not know (an answer after a wipe, a withdrawn answer's
 * replies read again), whose replays run through this same path.
 */
export function inboundPath(services: Services): Replay {
  const handle: Replay = (event) => handleInbound(services, event, rebuild);
  const rebuild: RebuildIssue = async (event, settings) => {
    const octokit = await services.github.installation(event.installationId);
    return (await reconcileIssue(services, handle, octokit, event.installationId, event.repo, snapshotOf(event), settings)).length;
  };
  return handle;
}

/** The issue as a delivery carries it, as reconciliation reads an issue. */
function snapshotOf(event: InboundEvent): IssueSnapshot {
  return {
    number: event.issue.number,
    title: event.issue.title,
    body: event.issue.body,
    html_url: event.issue.url,
    ...(event.issue.author ? { user: { login: event.issue.author } } : {}),
    ...(event.issue.nodeId ? { node_id: event.issue.nodeId } : {}),
    // Comment deliveries (the only ones that rebuild) always carry the issue's state.
    state: event.issue.state ?? "open",
    pull_request: event.issue.isPullRequest ? {} : undefined,
    assignees: event.issue.assignees.map((login) => ({ login })),
  };
}
