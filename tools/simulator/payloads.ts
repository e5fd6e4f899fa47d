import { createHash } from "node:crypto";
import { authorAssociation } from "./access.js";
import type { Account, Comment, Installation, Issue, IssueEvent, Label, Reaction, Repo, Review, ReviewComment, SimState } from "./state.js";
import type { ReactionContent } from "./types.js";

/**
 * GitHub's JSON shapes, shared by REST responses and webhook payloads so both always agree.
 * Field names and order follow @octokit/webhooks-examples.
 */

export type Json = Record<string, unknown>;

export interface AppInfo {
  id: number;
  slug: string;
  permissions: Record<string, string>;
  events: string[];
  createdAt: string;
}

export interface Urls {
  /** Where html_url links point (the simulator's root, like a GitHub Enterprise host). */
  web: string;
  /** Base of every `url` field: `${web}/api/v3`. */
  api: string;
}

const DEFAULT_BRANCH = "main";

export const REACTION_CONTENTS: readonly ReactionContent[] = ["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"];

/** The default branch's head: the simulator has no commits, so a stable stand-in per repository. */
function baseSha(repo: Repo): string {
  return createHash("sha1").update(`${repo.fullName}@${DEFAULT_BRANCH}`).digest("hex");
}

/** GitHub's legacy global node ids: base64 of "0<type length>:<Type><id>". */
export function nodeId(type: string, id: number): string {
  return Buffer.from(`0${type.length}:${type}${id}`).toString("base64");
}

/** The type and id a legacy global node id names, if it is one. */
export function parseNodeId(id: string): { type: string; id: number } | undefined {
  const [, length, type, number] = /^0(\d+):(\w+?)(\d+)$/.exec(Buffer.from(id, "base64").toString("utf8")) ?? [];
  if (type?.length !== Number(length)) return undefined;
  return { type, id: Number(number) };
}

export class Payloads {
  constructor(
    private readonly state: SimState,
    private readonly urls: Urls,
    private readonly appInfo: AppInfo,
  ) {}

  user(account: Account): Json {
    // GitHub percent-encodes a bot's brackets: /users/renovate%5Bbot%5D.
    const api = `${this.urls.api}/users/${encodeURIComponent(account.login)}`;
    const htmlUrl = account.type === "Bot" ? `${this.urls.web}/apps/${account.login.replace(/\[bot\]$/, "")}` : `${this.urls.web}/${account.login}`;
    return {
      login: account.login,
      id: account.id,
      node_id: nodeId(account.type, account.id),
      avatar_url: `${this.urls.web}/avatars/u/${account.id}?v=4`,
      gravatar_id: "",
      url: api,
      html_url: htmlUrl,
      followers_url: `${api}/followers`,
      following_url: `${api}/following{/other_user}`,
      gists_url: `${api}/gists{/gist_id}`,
      starred_url: `${api}/starred{/owner}{/repo}`,
      subscriptions_url: `${api}/subscriptions`,
      organizations_url: `${api}/orgs`,
      repos_url: `${api}/repos`,
      events_url: `${api}/events{/privacy}`,
      received_events_url: `${api}/received_events`,
      type: account.type,
      user_view_type: "public",
      site_admin: false,
    };
  }

  app(): Json {
    const owner: Account = { login: "github-simulator", id: 1, type: "Organization" };
    return {
      id: this.appInfo.id,
      slug: this.appInfo.slug,
      client_id: `Iv1.${this.appInfo.slug}`,
      node_id: nodeId("App", this.appInfo.id),
      owner: this.user(owner),
      name: this.appInfo.slug,
      description: "",
      external_url: `${this.urls.web}/apps/${this.appInfo.slug}`,
      html_url: `${this.urls.web}/apps/${this.appInfo.slug}`,
      created_at: this.appInfo.createdAt,
      updated_at: this.appInfo.createdAt,
      permissions: { ...this.appInfo.permissions },
      events: [...this.appInfo.events],
    };
  }

  installation(installation: Installation): Json {
    return {
      id: installation.id,
      client_id: `Iv1.${this.appInfo.slug}`,
      account: this.user(installation.account),
      repository_selection: "all",
      access_tokens_url: `${this.urls.api}/app/installations/${installation.id}/access_tokens`,
      repositories_url: `${this.urls.api}/installation/repositories`,
      html_url: `${this.urls.web}/settings/installations/${installation.id}`,
      app_id: this.appInfo.id,
      app_slug: this.appInfo.slug,
      target_id: installation.account.id,
      target_type: installation.account.type,
      permissions: { ...this.appInfo.permissions },
      events: [...this.appInfo.events],
      created_at: installation.createdAt,
      updated_at: installation.createdAt,
      single_file_name: null,
      has_multiple_single_files: false,
      single_file_paths: [],
      suspended_by: null,
      suspended_at: null,
    };
  }

  repoLinks(repo: Repo): { api: string; html: string } {
    return { api: `${this.urls.api}/repos/${repo.fullName}`, html: `${this.urls.web}/${repo.fullName}` };
  }

  repository(repo: Repo): Json {
    const { api, html } = this.repoLinks(repo);
    const host = new URL(this.urls.web).host;
    const openIssues = [...repo.issues.values()].filter((i) => i.state === "open").length;
    return {
      id: repo.id,
      node_id: nodeId("Repository", repo.id),
      name: repo.name,
      full_name: repo.fullName,
      private: repo.private,
      owner: this.user(repo.owner),
      html_url: html,
      description: null,
      fork: false,
      url: api,
      forks_url: `${api}/forks`,
      keys_url: `${api}/keys{/key_id}`,
      collaborators_url: `${api}/collaborators{/collaborator}`,
      teams_url: `${api}/teams`,
      hooks_url: `${api}/hooks`,
      issue_events_url: `${api}/issues/events{/number}`,
      events_url: `${api}/events`,
      assignees_url: `${api}/assignees{/user}`,
      branches_url: `${api}/branches{/branch}`,
      tags_url: `${api}/tags`,
      blobs_url: `${api}/git/blobs{/sha}`,
      git_tags_url: `${api}/git/tags{/sha}`,
      git_refs_url: `${api}/git/refs{/sha}`,
      trees_url: `${api}/git/trees{/sha}`,
      statuses_url: `${api}/statuses/{sha}`,
      languages_url: `${api}/languages`,
      stargazers_url: `${api}/stargazers`,
      contributors_url: `${api}/contributors`,
      subscribers_url: `${api}/subscribers`,
      subscription_url: `${api}/subscription`,
      commits_url: `${api}/commits{/sha}`,
      git_commits_url: `${api}/git/commits{/sha}`,
      comments_url: `${api}/comments{/number}`,
      issue_comment_url: `${api}/issues/comments{/number}`,
      contents_url: `${api}/contents/{+path}`,
      compare_url: `${api}/compare/{base}...{head}`,
      merges_url: `${api}/merges`,
      archive_url: `${api}/{archive_format}{/ref}`,
      downloads_url: `${api}/downloads`,
      issues_url: `${api}/issues{/number}`,
      pulls_url: `${api}/pulls{/number}`,
      milestones_url: `${api}/milestones{/number}`,
      notifications_url: `${api}/notifications{?since,all,participating}`,
      labels_url: `${api}/labels{/name}`,
      releases_url: `${api}/releases{/id}`,
      deployments_url: `${api}/deployments`,
      created_at: repo.createdAt,
      updated_at: repo.createdAt,
      pushed_at: repo.createdAt,
      git_url: `git://${host}/${repo.fullName}.git`,
      ssh_url: `git@${host}:${repo.fullName}.git`,
      clone_url: `${html}.git`,
      svn_url: html,
      homepage: null,
      size: 0,
      stargazers_count: 0,
      watchers_count: 0,
      language: null,
      has_issues: true,
      has_projects: true,
      has_downloads: true,
      has_wiki: true,
      has_pages: false,
      has_discussions: false,
      forks_count: 0,
      mirror_url: null,
      archived: false,
      disabled: false,
      open_issues_count: openIssues,
      license: null,
      forks: 0,
      open_issues: openIssues,
      watchers: 0,
      default_branch: DEFAULT_BRANCH,
      is_template: false,
      topics: [],
      visibility: repo.private ? "private" : "public",
      web_commit_signoff_required: false,
      custom_properties: {},
    };
  }

  organization(org: Account): Json {
    const api = `${this.urls.api}/orgs/${org.login}`;
    return {
      login: org.login,
      id: org.id,
      node_id: nodeId("Organization", org.id),
      url: api,
      repos_url: `${api}/repos`,
      events_url: `${api}/events`,
      hooks_url: `${api}/hooks`,
      issues_url: `${api}/issues`,
      members_url: `${api}/members{/member}`,
      public_members_url: `${api}/public_members{/member}`,
      avatar_url: `${this.urls.web}/avatars/u/${org.id}?v=4`,
      description: null,
    };
  }

  label(repo: Repo, label: Label): Json {
    return {
      id: label.id,
      node_id: nodeId("Label", label.id),
      url: `${this.urls.api}/repos/${repo.fullName}/labels/${encodeURIComponent(label.name)}`,
      name: label.name,
      color: label.color,
      default: label.default,
      description: label.description,
    };
  }

  issue(issue: Issue): Json {
    const repoApi = `${this.urls.api}/repos/${issue.repo.fullName}`;
    const api = `${repoApi}/issues/${issue.number}`;
    return {
      url: api,
      repository_url: repoApi,
      labels_url: `${api}/labels{/name}`,
      comments_url: `${api}/comments`,
      events_url: `${api}/events`,
      html_url: `${this.urls.web}/${issue.repo.fullName}/issues/${issue.number}`,
      id: issue.id,
      // A pull request listed as an issue carries its pull request's node id, as on GitHub.
      node_id: nodeId(issue.pullRequest ? "PullRequest" : "Issue", issue.id),
      number: issue.number,
      title: issue.title,
      user: this.user(issue.author),
      labels: issue.labels.map((label) => this.label(issue.repo, label)),
      state: issue.state,
      locked: false,
      assignee: issue.assignees[0] ? this.user(issue.assignees[0]) : null,
      assignees: issue.assignees.map((account) => this.user(account)),
      milestone: null,
      comments: issue.comments.length,
      created_at: issue.createdAt,
      updated_at: issue.updatedAt,
      closed_at: issue.closedAt,
      author_association: authorAssociation(this.state, issue.repo, issue.author),
      active_lock_reason: null,
      body: issue.body,
      // Only comment reactions are simulated; an issue's own reactions are always empty.
      reactions: this.reactionSummary(`${api}/reactions`, []),
      timeline_url: `${api}/timeline`,
      performed_via_github_app: issue.viaApp ? this.app() : null,
      state_reason: issue.stateReason,
      // The issues API marks a pull request with this field (and lists it among the issues).
      ...(issue.pullRequest
        ? { pull_request: { url: `${repoApi}/pulls/${issue.number}`, html_url: `${this.urls.web}/${issue.repo.fullName}/pull/${issue.number}` } }
        : {}),
    };
  }

  /** The pull request a `pull_request` webhook carries: a branch of the same repository into its default branch. */
  pullRequest(issue: Issue): Json {
    const repo = issue.repo;
    const { api: repoApi, html: repoHtml } = this.repoLinks(repo);
    const api = `${repoApi}/pulls/${issue.number}`;
    const html = `${repoHtml}/pull/${issue.number}`;
    const issueApi = `${repoApi}/issues/${issue.number}`;
    const headSha = issue.pullRequest?.headSha ?? "";
    const headRef = `patch-${issue.number}`;
    const branch = (ref: string, sha: string): Json => ({
      label: `${repo.owner.login}:${ref}`,
      ref,
      sha,
      user: this.user(repo.owner),
      repo: this.repository(repo),
    });
    return {
      url: api,
      id: issue.id,
      node_id: nodeId("PullRequest", issue.id),
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      issue_url: issueApi,
      number: issue.number,
      state: issue.state,
      locked: false,
      title: issue.title,
      user: this.user(issue.author),
      body: issue.body,
      created_at: issue.createdAt,
      updated_at: issue.updatedAt,
      closed_at: issue.closedAt,
      merged_at: null,
      merge_commit_sha: null,
      assignee: issue.assignees[0] ? this.user(issue.assignees[0]) : null,
      assignees: issue.assignees.map((account) => this.user(account)),
      requested_reviewers: [],
      requested_teams: [],
      labels: issue.labels.map((label) => this.label(repo, label)),
      milestone: null,
      draft: false,
      commits_url: `${api}/commits`,
      review_comments_url: `${api}/comments`,
      review_comment_url: `${repoApi}/pulls/comments{/number}`,
      comments_url: `${issueApi}/comments`,
      statuses_url: `${repoApi}/statuses/${headSha}`,
      head: branch(headRef, headSha),
      base: branch(DEFAULT_BRANCH, baseSha(repo)),
      _links: {
        self: { href: api },
        html: { href: html },
        issue: { href: issueApi },
        comments: { href: `${issueApi}/comments` },
        review_comments: { href: `${api}/comments` },
        review_comment: { href: `${repoApi}/pulls/comments{/number}` },
        commits: { href: `${api}/commits` },
        statuses: { href: `${repoApi}/statuses/${headSha}` },
      },
      author_association: authorAssociation(this.state, repo, issue.author),
      auto_merge: null,
      active_lock_reason: null,
      merged: false,
      mergeable: null,
      rebaseable: null,
      mergeable_state: "unknown",
      merged_by: null,
      comments: issue.comments.length,
      review_comments: 0,
      maintainer_can_modify: false,
      commits: 1,
      additions: 1,
      deletions: 1,
      changed_files: 1,
    };
  }

  comment(comment: Comment): Json {
    const repoApi = `${this.urls.api}/repos/${comment.repo.fullName}`;
    const api = `${repoApi}/issues/comments/${comment.id}`;
    return {
      url: api,
      html_url: `${this.urls.web}/${comment.repo.fullName}/issues/${comment.issueNumber}#issuecomment-${comment.id}`,
      issue_url: `${repoApi}/issues/${comment.issueNumber}`,
      id: comment.id,
      node_id: nodeId("IssueComment", comment.id),
      user: this.user(comment.author),
      created_at: comment.createdAt,
      updated_at: comment.updatedAt,
      author_association: authorAssociation(this.state, comment.repo, comment.author),
      body: comment.body,
      reactions: this.reactionSummary(`${api}/reactions`, comment.reactions),
      performed_via_github_app: comment.viaApp ? this.app() : null,
    };
  }

  issueEvent(issue: Issue, event: IssueEvent): Json {
    return {
      id: event.id,
      node_id: nodeId(event.rename ? "RenamedTitleEvent" : "LabeledEvent", event.id),
      url: `${this.urls.api}/repos/${issue.repo.fullName}/issues/events/${event.id}`,
      actor: this.user(event.actor),
      event: event.event,
      commit_id: null,
      commit_url: null,
      created_at: event.createdAt,
      ...(event.label ? { label: { name: event.label.name, color: event.label.color } } : {}),
      ...(event.rename ? { rename: event.rename } : {}),
      performed_via_github_app: event.viaApp ? this.app() : null,
    };
  }

  reaction(reaction: Reaction): Json {
    return {
      id: reaction.id,
      node_id: nodeId("Reaction", reaction.id),
      user: this.user(reaction.user),
      content: reaction.content,
      created_at: reaction.createdAt,
    };
  }

  private reactionSummary(url: string, reactions: readonly Reaction[]): Json {
    const summary: Json = { url, total_count: reactions.length };
    for (const content of REACTION_CONTENTS) summary[content] = reactions.filter((r) => r.content === content).length;
    return summary;
  }

  /** A webhook body: the event's own fields, then repository, organization, sender and installation, as GitHub orders them. */
  webhook(action: string, repo: Repo, sender: Account, fields: Json): Json {
    const owner = repo.owner;
    return {
      action,
      ...fields,
      repository: this.repository(repo),
      ...(owner.type === "Organization" ? { organization: this.organization(owner) } : {}),
      sender: this.user(sender),
      installation: { id: repo.installationId, node_id: nodeId("IntegrationInstallation", repo.installationId) },
    };
  }

  /**
   * A pull request review. Webhooks carry the state in lower case and a missing body as null; the
   * REST API upper-cases the state and gives an empty body as "".
   */
  review(issue: Issue, review: Review, form: "webhook" | "rest"): Json {
    const prApi = `${this.urls.api}/repos/${issue.repo.fullName}/pulls/${issue.number}`;
    const html = `${this.urls.web}/${issue.repo.fullName}/pull/${issue.number}#pullrequestreview-${review.id}`;
    return {
      id: review.id,
      node_id: nodeId("PullRequestReview", review.id),
      user: this.user(review.author),
      body: form === "rest" ? (review.body ?? "") : review.body,
      commit_id: review.commitId,
      submitted_at: review.submittedAt,
      state: form === "rest" ? review.state.toUpperCase() : review.state,
      html_url: html,
      pull_request_url: prApi,
      author_association: authorAssociation(this.state, issue.repo, review.author),
      _links: { html: { href: html }, pull_request: { href: prApi } },
    };
  }

  /** A comment on a line of a pull request's diff (the REST API and webhooks agree on it). */
  reviewComment(issue: Issue, comment: ReviewComment): Json {
    const repoApi = `${this.urls.api}/repos/${issue.repo.fullName}`;
    const api = `${repoApi}/pulls/comments/${comment.id}`;
    const html = `${this.urls.web}/${issue.repo.fullName}/pull/${issue.number}#discussion_r${comment.id}`;
    const prApi = `${repoApi}/pulls/${issue.number}`;
    return {
      url: api,
      pull_request_review_id: comment.reviewId,
      id: comment.id,
      node_id: nodeId("PullRequestReviewComment", comment.id),
      diff_hunk: `@@ -${comment.line},1 +${comment.line},1 @@`,
      path: comment.path,
      position: 1,
      original_position: 1,
      commit_id: comment.commitId,
      original_commit_id: comment.commitId,
      user: this.user(comment.author),
      body: comment.body,
      created_at: comment.createdAt,
      updated_at: comment.updatedAt,
      html_url: html,
      pull_request_url: prApi,
      author_association: authorAssociation(this.state, issue.repo, comment.author),
      _links: { self: { href: api }, html: { href: html }, pull_request: { href: prApi } },
      reactions: this.reactionSummary(`${api}/reactions`, []),
      start_line: null,
      original_start_line: null,
      start_side: null,
      line: comment.line,
      original_line: comment.line,
      side: comment.side,
      subject_type: "line",
    };
  }
}
