import type { ContentLimits } from "./ratelimit.js";

/** Public types of the GitHub simulator. Inspection types use GitHub's snake_case field names. */

export interface SimulatorOptions {
  /** Default 0: the OS picks a free port. The server always binds 127.0.0.1. */
  port?: number;
  /** Where webhooks are POSTed; can be set later with setWebhookUrl. */
  webhookUrl?: string;
  webhookSecret: string;
  /** Default 1. */
  appId?: number;
  /** Default "escalation". */
  appSlug?: string;
  log?: (line: string) => void;
  /** Where the repositories' bare git repositories live; default: a temporary directory removed by stop(). */
  gitRoot?: string;
  /** Enforce GitHub's secondary limit on content creation from the start (see setContentLimits). */
  contentLimits?: ContentLimits;
  /** Sees every HTTP request before it is answered, e.g. to hold the caller to GitHub's REST description. */
  inspect?: (request: ReceivedRequest) => void;
}

/** An HTTP request as the simulator received it: its JSON body parsed, undefined when empty, the text when not JSON. */
export interface ReceivedRequest {
  method: string;
  url: URL;
  body: unknown;
}

export type Permission = "admin" | "maintain" | "write" | "triage" | "read" | "none";

export type AccountType = "User" | "Bot" | "Organization";

export type ReactionContent = "+1" | "-1" | "laugh" | "confused" | "heart" | "hooray" | "rocket" | "eyes";

export interface SimUser {
  login: string;
  id: number;
  type: "User" | "Bot";
  /** Personal access token: send it as `Authorization: token <token>` to act as this user. */
  token: string;
}

export interface SimUserRef {
  login: string;
  id: number;
  type: AccountType;
}

export interface SimRepo {
  id: number;
  name: string;
  full_name: string;
  owner: string;
  private: boolean;
  installation_id: number;
  html_url: string;
}

export interface SimIssue {
  id: number;
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  state_reason: "completed" | "not_planned" | "reopened" | null;
  labels: string[];
  /** Logins of the assignees. */
  assignees: string[];
  user: SimUserRef;
  /** Number of comments, as in GitHub's issue object. */
  comments: number;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  html_url: string;
  /** Whether it is a pull request (an issue with a branch). */
  pull_request: boolean;
}

export interface SimReaction {
  content: ReactionContent;
  /** Login of the user who reacted. */
  user: string;
}

export interface SimComment {
  id: number;
  issue_number: number;
  body: string;
  user: SimUserRef;
  created_at: string;
  updated_at: string;
  html_url: string;
  reactions: SimReaction[];
}

export interface ApiCall {
  method: string;
  /** Route template, e.g. "POST /repos/{owner}/{repo}/issues/{issue_number}/comments"; "GET (unmatched)" when none matched. */
  route: string;
  /** Path below /api/v3, with the query string. */
  path: string;
  status: number;
  /** Login acting (user or bot), `app:<slug>` for an app JWT, "anonymous" when unauthenticated. */
  actor: string;
  at: number;
}

/** A webhook event the simulator lost (loseDeliveries): raised, never sent. */
export interface LostDelivery {
  id: string;
  event: string;
  action?: string;
  at: number;
}

export interface Delivery {
  id: string;
  event: string;
  action?: string;
  status: number | "error";
  ms: number;
  at: number;
  /** 1 for the first attempt, incremented by each redeliver of the same id. */
  attempt: number;
}
