/**
 * What reconciliation needs of an issue, as GitHub's REST API returns it: a pass lists it, the
 * webhook's path builds one from an event when it reads an issue's replies again.
 */
export interface IssueSnapshot {
  number: number;
  title: string;
  body?: string | null;
  html_url: string;
  state: string;
  pull_request?: unknown;
  assignees?: Array<{ login: string }> | null;
  user?: { login: string } | null;
  /** GitHub's GraphQL id: who last edited the body is read by it. */
  node_id?: string;
  /** As the REST API lists them; an ask reopened here is not labelled again when the issue has the label. */
  labels?: Array<string | { name?: string }>;
}
