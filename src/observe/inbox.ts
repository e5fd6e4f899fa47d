import { z } from "zod";
import type { Gate } from "../domain.js";

/** One who can answer a gate, and why: what the inbox groups by. */
export interface AnswererView {
  /** user: a login; team: org/team-slug; permission: anyone with `name` access (or "allowed": the rule of the day, for gates older than this record). */
  kind: "user" | "team" | "permission";
  name: string;
  via: "code owner" | "configured" | "assignee" | "permission";
}

export interface InboxEntry {
  id: string;
  repo: string;
  issue: number;
  title: string | null;
  kind: string;
  /** The first question still unanswered (or the first), to recognise the gate by. */
  question: string;
  ageSeconds: number;
  timeLeftSeconds: number | null;
  via: AnswererView["via"];
  paths: string[];
  url: string;
  issueUrl: string;
}

export interface InboxGroup {
  answerer: { kind: AnswererView["kind"]; name: string; label: string };
  count: number;
  oldestAgeSeconds: number;
  /** Oldest first. */
  gates: InboxEntry[];
}

/** A login or org/team-slug, with or without a leading @, as `--answerer` and `?answerer=` take it. */
export const AnswererName = z
  .string()
  .trim()
  .regex(/^@?[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\/[A-Za-z0-9_.-]+)?$/, {
    error: (issue) => `must be a GitHub login or org/team-slug, like alice or acme/db-team (got ${JSON.stringify(issue.input)})`,
  })
  .transform((name) => name.replace(/^@/, "").toLowerCase());

/** How the open gates are shown: by repository (the default) or by who can answer (the inbox). */
export const InboxQuery = z.object({
  by: z.enum(["repo", "answerer"], { error: (issue) => `must be repo or answerer (got ${JSON.stringify(issue.input)})` }).default("repo"),
  answerers: z.array(AnswererName).max(20).default([]),
});

/**
 * Who can answer a gate, from what it recorded when it opened: its code owners and configured
 * answerers; without code owners, also the issue's assignees (the people it waits on) and anyone
 * with the minimum permission. A gate older than the record falls under the repository's rule.
 */
export function answererViews(gate: Gate, assignees: readonly string[]): AnswererView[] {
  const recorded = gate.answerers;
  const views: AnswererView[] = [];
  const add = (view: AnswererView) => {
    if (!views.some((v) => v.kind === view.kind && v.name === view.name)) views.push(view);
  };
  recorded?.codeOwners?.users.forEach((name) => add({ kind: "user", name, via: "code owner" }));
  recorded?.codeOwners?.teams.forEach((name) => add({ kind: "team", name, via: "code owner" }));
  recorded?.users.forEach((name) => add({ kind: "user", name, via: "configured" }));
  recorded?.teams.forEach((name) => add({ kind: "team", name, via: "configured" }));
  if (!recorded?.codeOwners) {
    assignees.forEach((name) => add({ kind: "user", name: name.toLowerCase(), via: "assignee" }));
    add({ kind: "permission", name: recorded?.minimumPermission ?? "allowed", via: "permission" });
  }
  return views;
}

/** "@alice (code owner)", "anyone with write access": one who can answer a gate, as the status page says it. */
export function answererText(answerer: AnswererView): string {
  if (answerer.kind === "permission") return answerer.name === "allowed" ? "anyone allowed on the repository" : `anyone with ${answerer.name} access`;
  return `@${answerer.name} (${answerer.via})`;
}

/** Whether `answerer` is one of `names` (lower-cased logins and org/teams). */
export function matchesAnswerer(answerer: AnswererView, names: readonly string[]): boolean {
  return answerer.kind !== "permission" && names.includes(answerer.name);
}

function groupOf(answerer: AnswererView, repo: string): { key: string; answerer: InboxGroup["answerer"] } {
  if (answerer.kind === "permission") {
    const label = answerer.name === "allowed" ? `anyone allowed to answer on ${repo}` : `anyone with ${answerer.name} access to ${repo}`;
    return { key: `permission:${repo.toLowerCase()}:${answerer.name}`, answerer: { kind: "permission", name: `${repo}:${answerer.name}`, label } };
  }
  return { key: `${answerer.kind}:${answerer.name}`, answerer: { kind: answerer.kind, name: answerer.name, label: `@${answerer.name}` } };
}

/** What the inbox reads of a gate's view (gateView.ts builds it). */
export interface InboxSource {
  id: string;
  repo: string;
  issue: number;
  title: string | null;
  kind: string;
  questions: ReadonlyArray<{ text: string; answer: unknown }>;
  ageSeconds: number;
  timeLeftSeconds: number | null;
  answerers: readonly AnswererView[];
  paths: string[];
  url: string;
  issueUrl: string;
}

/**
 * The inbox: each who can answer with every open gate waiting on them, oldest first; the groups
 * ordered by their oldest gate. With `only`, just those logins' and teams' groups.
 */
export function groupByAnswerer(gates: readonly InboxSource[], only: readonly string[] = []): InboxGroup[] {
  const groups = new Map<string, InboxGroup>();
  for (const gate of gates) {
    for (const answerer of gate.answerers) {
      if (only.length > 0 && !matchesAnswerer(answerer, only)) continue;
      const { key, answerer: who } = groupOf(answerer, gate.repo);
      const group = groups.get(key) ?? { answerer: who, count: 0, oldestAgeSeconds: 0, gates: [] };
      groups.set(key, group);
      group.gates.push(entryOf(gate, answerer.via));
      group.count = group.gates.length;
      group.oldestAgeSeconds = Math.max(group.oldestAgeSeconds, gate.ageSeconds);
    }
  }
  for (const group of groups.values()) group.gates.sort((a, b) => b.ageSeconds - a.ageSeconds);
  return [...groups.values()].sort((a, b) => b.oldestAgeSeconds - a.oldestAgeSeconds || a.answerer.label.localeCompare(b.answerer.label));
}

function entryOf(gate: InboxSource, via: AnswererView["via"]): InboxEntry {
  const waiting = gate.questions.find((q) => q.answer === null) ?? gate.questions[0];
  return {
    id: gate.id,
    repo: gate.repo,
    issue: gate.issue,
    title: gate.title,
    kind: gate.kind,
    question: waiting?.text ?? "",
    ageSeconds: gate.ageSeconds,
    timeLeftSeconds: gate.timeLeftSeconds,
    via,
    paths: gate.paths,
    url: gate.url,
    issueUrl: gate.issueUrl,
  };
}
