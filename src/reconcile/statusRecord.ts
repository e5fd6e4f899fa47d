import type { MarkerSeal } from "../protocol/marker.js";
import { parseStatusComment, type StatusState } from "../protocol/statusComment.js";

type GateRecord = StatusState["gates"][number];

export interface StatusComment {
  id: number;
  body?: string;
  user: { login: string } | null;
}

/** GitHub's record of an issue's gates, merged from the app's status comments. */
export interface StatusRecord {
  state: StatusState;
  /** The newest status comment: the one later renders should edit. */
  commentId: number;
}

/** How far a gate got; a later render never moves a gate back, so the furthest record wins. */
const PROGRESS: Record<string, number> = { open: 0, answered: 1, resuming: 2, resumed: 3, superseded: 3, cancelled: 3 };

/**
 * Reads the hidden state of every status comment the app posted on the issue. Normally there is
 * one; after Redis lost the issue (a wipe), the app posts a second that knows only the gates it has
 * seen since, so the newest comment alone would forget the older gates. Per gate, the record that
 * got furthest wins; the round counter is the highest any comment saw. Only state whose signature
 * verifies for this issue counts (src/reconcile/ignoredState.ts reports the rest).
 */
export function readStatusRecord(comments: readonly StatusComment[], isApp: (login: string) => boolean, seal: MarkerSeal): StatusRecord | undefined {
  let record: StatusRecord | undefined;
  for (const comment of comments) {
    if (!comment.user || !isApp(comment.user.login) || !comment.body) continue;
    const state = parseStatusComment(comment.body, seal);
    if (!state) continue;
    record = record ? { state: merge(record.state, state), commentId: comment.id } : { state, commentId: comment.id };
  }
  return record;
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
