import { authorAssociation } from "./access.js";
import type { Account, Comment, Installation, Issue, IssueEvent, Label, Reaction, Repo, SimState } from "./state.js";
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

export const REACTION_CONTENTS: readonly ReactionContent[] = ["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"];

/** GitHub's legacy global node ids: base64 of "0<type length>:<Type><id>". */
function nodeId(type: string, id: number): string {
  return Buffer.from(`0${type.length}:${type}${id}`).toString("base64");
}

export class Payloads {
  constructor(
    private readonly state: SimState,
    private readonly urls: Urls,
    private readonly appInfo: AppInfo,
  ) {}

  user(account: Account): Json {
    const api = `${this.urls.api}/users/${account.login}`;
    const htmlUrl =
      account.type === "Bot" ? `${this.urls.web}/apps/${account.login.replace(/\[bot\]$/, "")}` : `${this.urls.web}/${account.login}`;
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
    const openIssues = [...repo.issues.values()].filter((i) => i.state === "open").length;
    return {
      id: repo.id,
      node_id: nodeId("Repository", repo.id),
      name: repo.name,
      full_name: repo.fullName,
      private: repo.private,
      owner: this.user(repo.owner),
      html_url: html,
      clone_url: `${html}.git`,
      description: null,
      fork: false,
      url: api,
      issues_url: `${api}/issues{/number}`,
      issue_comment_url: `${api}/issues/comments{/number}`,
      labels_url: `${api}/labels{/name}`,
      collaborators_url: `${api}/collaborators{/collaborator}`,
      contents_url: `${api}/contents/{+path}`,
      created_at: repo.createdAt,
      updated_at: repo.createdAt,
      pushed_at: repo.createdAt,
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
      forks_count: 0,
      archived: false,
      disabled: false,
      open_issues_count: openIssues,
      license: null,
      forks: 0,
      open_issues: openIssues,
      watchers: 0,
      default_branch: "main",
      is_template: false,
      topics: [],
      visibility: repo.private ? "private" : "public",
      web_commit_signoff_required: false,
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
      node_id: nodeId("Issue", issue.id),
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
      ...(issue.pullRequest ? { pull_request: { url: `${repoApi}/pulls/${issue.number}`, html_url: `${this.urls.web}/${issue.repo.fullName}/pull/${issue.number}` } } : {}),
    };
  }

  /** The pull request a `pull_request` webhook carries (the fields the app reads, and a few more). */
  pullRequest(issue: Issue): Json {
    const base = this.issue(issue);
    return {
      url: `${this.urls.api}/repos/${issue.repo.fullName}/pulls/${issue.number}`,
      id: issue.id,
      number: issue.number,
      state: issue.state,
      title: issue.title,
      body: issue.body,
      user: base.user,
      html_url: `${this.urls.web}/${issue.repo.fullName}/pull/${issue.number}`,
      assignees: base.assignees,
      labels: base.labels,
      created_at: issue.createdAt,
      updated_at: issue.updatedAt,
      head: { sha: issue.pullRequest?.headSha ?? "" },
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
      node_id: nodeId("LabeledEvent", event.id),
      url: `${this.urls.api}/repos/${issue.repo.fullName}/issues/events/${event.id}`,
      actor: this.user(event.actor),
      event: event.event,
      commit_id: null,
      commit_url: null,
      created_at: event.createdAt,
      ...(event.label ? { label: { name: event.label.name, color: event.label.color } } : {}),
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
      ...(owner.type === "Organization"
        ? {
            organization: {
              login: owner.login,
              id: owner.id,
              node_id: nodeId("Organization", owner.id),
              url: `${this.urls.api}/orgs/${owner.login}`,
              repos_url: `${this.urls.api}/orgs/${owner.login}/repos`,
              avatar_url: `${this.urls.web}/avatars/u/${owner.id}?v=4`,
              description: null,
            },
          }
        : {}),
      sender: this.user(sender),
      installation: { id: repo.installationId, node_id: nodeId("IntegrationInstallation", repo.installationId) },
    };
  }
}
