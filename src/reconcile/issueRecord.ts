/**
 * The issue's record refreshed from what GitHub lists: the body as its author wrote it (the REST
 * body may be another account's edit: README, "Changed by someone else") and the title a person gave
 * it. Each is read from GitHub only when a pass did not read it for many issues at once.
 */
import { botJudge } from "../gates/issueTitle.js";
import type { InstallationOctokit } from "../github/octokit.js";
import type { Services } from "../services/services.js";
import { issueBodyEdit } from "./authorsWords.js";
import { installationGraphql } from "./editHistory.js";
import type { IssueHistory } from "./issueHistories.js";
import type { IssueSnapshot } from "./issueSnapshot.js";
import type { ReplayBase } from "./replayedEvents.js";
import { readTitleEdit } from "./titleHistory.js";

/** What refreshing the record touches: the issue record, the log, who counts as a bot, and GraphQL to read the body's history. */
export interface IssueRecordPorts {
  issues: Pick<Services["issues"], "getIssue" | "upsertIssue">;
  github: Pick<Services["github"], "graphqlReads">;
  log: Pick<Services["log"], "warn">;
  config: Pick<Services["config"], "agentLogins">;
}

/** `base`: the issue as the replayed events carry it; `history`: the body's and title's, when a pass read them. */
export async function refreshIssueRecord(
  services: IssueRecordPorts,
  octokit: InstallationOctokit,
  base: ReplayBase,
  issue: IssueSnapshot,
  botLogin: string,
  history?: IssueHistory,
): Promise<void> {
  const { installationId, repo, issue: shown } = base;
  const ref = { repo, issue: issue.number };
  const bodyEdit =
    !issue.node_id || !issue.body ? undefined : history ? history.bodyEdit : await issueBodyEdit(installationGraphql(services, installationId), issue.node_id);
  if (bodyEdit)
    services.log.warn(
      { ...ref, author: issue.user?.login, editor: bodyEdit.editor, kept: bodyEdit.authorBody !== undefined },
      "the issue's body was last edited by someone other than its author",
    );
  // The title a person gave it: read from its events only when Redis has no record of the live edits.
  const titleEdit = (await services.issues.getIssue(ref))
    ? undefined
    : history?.titleEdit !== undefined
      ? history.titleEdit
      : await readTitleEdit(octokit, repo, issue.number, botJudge(services, botLogin));
  await services.issues.upsertIssue({
    ...ref,
    installationId,
    titleEdit,
    title: shown.title,
    body: shown.body,
    url: shown.url,
    author: issue.user?.login,
    assignees: shown.assignees,
    state: issue.state,
    bodyEdit,
  });
}
