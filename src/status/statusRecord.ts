import type { MarkerSeal } from "../protocol/marker.js";
import { parseStatusComment, type StatusState } from "./statusComment.js";

type GateRecord = StatusState["gates"][number];

export interface StatusComment {
  id: number;
  body?: string;
  user: { login: string } | null;
  html_url?: string;
  /** GitHub's GraphQL id: the comment's earlier versions are read by it (src/reconcile/newestRenders.ts). */
  node_id?: string;
}

/** GitHub's record of an issue's gates, merged from the app's status comments. */
export interface StatusRecord {
  state: StatusState;
  /** The newest status comment: the one later renders should edit. */
  commentId: number;
}

/** A record the app signed, read in the comment that holds it. */
export interface FoundRecord {
  comment: StatusComment;
  state: StatusState;
}

export interface StatusReadings {
  /** The app's records, each in the comment it was written into, oldest comment first. */
  found: FoundRecord[];
  /** Comments holding a record the app signed but wrote elsewhere (a copy), or an earlier version's record beside newer ones. */
  replayed: StatusComment[];
}

/** How far a gate got; a later render never moves a gate back, so the furthest record wins. */
const PROGRESS: Record<string, number> = { open: 0, answered: 1, resuming: 2, resumed: 3, superseded: 3, cancelled: 3 };

/**
 * The signed status records on the issue, each checked against where it lives: a record names the
 * comment the app wrote it into, so one in any other comment is a copy (the agent, acting as the
 * App's bot, can copy a signed record but not re-sign it) and is not the app's. Records of versions
 * before that name no comment; they are read only while the issue has no record that does (the
 * app's next render of a status comment names it), so an old one cannot be replayed beside them.
 */
export function statusRecords(comments: readonly StatusComment[], isApp: (login: string) => boolean, seal: MarkerSeal): StatusReadings {
  const bound: FoundRecord[] = [];
  const legacy: FoundRecord[] = [];
  const replayed: StatusComment[] = [];
  for (const comment of comments) {
    if (!comment.user || !isApp(comment.user.login) || !comment.body) continue;
    const state = parseStatusComment(comment.body, seal);
    if (!state) continue;
    if (state.comment === undefined) legacy.push({ comment, state });
    else if (state.comment === comment.id) bound.push({ comment, state });
    else replayed.push(comment);
  }
  if (bound.length === 0) return { found: legacy, replayed };
  return { found: bound, replayed: [...replayed, ...legacy.map((l) => l.comment)].sort((a, b) => a.id - b.id) };
}

/**
 * Merges the app's records. Normally there is one status comment; after Redis lost the issue (a
 * wipe), the app posts a second that knows only the gates it has seen since, so the newest comment
 * alone would forget the older gates. Per gate, the record that got furthest wins; the round
 * counter is the highest any comment saw.
 */
export function mergeStatusRecords(found: readonly FoundRecord[]): StatusRecord | undefined {
  let record: StatusRecord | undefined;
  for (const { comment, state } of found) record = record ? { state: merge(record.state, state), commentId: comment.id } : { state, commentId: comment.id };
  return record;
}

/**
 * The app's record as the status comments hold it, taking only state whose signature verifies
 * for this issue (src/reconcile/ignoredState.ts reports the rest) and that lives where the app wrote it.
 */
export function readStatusRecord(comments: readonly StatusComment[], isApp: (login: string) => boolean, seal: MarkerSeal): StatusRecord | undefined {
  return mergeStatusRecords(statusRecords(comments, isApp, seal).found);
}

function merge(older: StatusState, newer: StatusState): StatusState {
  const gates = new Map<string, GateRecord>(older.gates.map((g) => [g.id, g]));
  for (const gate of newer.gates) {
    const known = gates.get(gate.id);
    if (!known || (PROGRESS[gate.state] ?? 0) >= (PROGRESS[known.state] ?? 0)) gates.set(gate.id, gate);
  }
  // Notes too: a status comment posted after a wipe knows only the notes left since.
  const notes = new Map([...(older.notes ?? []), ...(newer.notes ?? [])].map((n) => [`${n.url}|${n.at}`, n]));
  // And round timings: per round, the newer comment's.
  const rounds = new Map([...(older.rounds ?? []), ...(newer.rounds ?? [])].map((r) => [r.round, r]));
  return {
    ...newer,
    nextRound: Math.max(older.nextRound, newer.nextRound),
    gates: [...gates.values()],
    ...(notes.size > 0 ? { notes: [...notes.values()].sort((a, b) => a.at - b.at) } : {}),
    ...(rounds.size > 0 ? { rounds: [...rounds.values()].sort((a, b) => a.round - b.round) } : {}),
  };
}
