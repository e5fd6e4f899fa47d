/**
 * Queue names and job ids. Job ids are
 * derived from what they act on, so the queue itself refuses a second job for the same answered
 * gate or the same timeout.
 * BullMQ forbids ":" in custom ids; we use "-" and keep the rest readable.
 */
export const QUEUES = {
  /** A job per acknowledged webhook delivery: the event handled (src/queue/inboundWorker.ts). */
  inbound: "inbound",
  /** A round for each answer and dispatch: the job re-spawns the agent (src/queue/spawnWorker.ts). */
  spawn: "spawn",
  /** A job per issue lane that owes GitHub writes: labels, comments, reactions, the status comment (src/queue/feedbackWorker.ts). */
  feedback: "feedback",
  /** Delayed jobs that fire when an open gate's timeout passes, or a step of its reminder ladder is due. */
  timeouts: "timeouts",
  /** Reconciliation with GitHub, at start-up and on a schedule. */
  maintenance: "maintenance",
  /** The Slack mirror's posts and updates (only when Slack is configured); Slack being slow or down never touches the others. */
  mirror: "mirror",
} as const;

/** The states the health check and the metrics ask of every queue. */
export type CountedState = "waiting" | "active" | "delayed" | "failed";

/** A part of a job or entry id as Redis keys may hold it: letters, digits and `_.#/-` kept, anything else `_`. */
export const safe = (text: string) => text.replace(/[^A-Za-z0-9_.#/-]/g, "_");

export const jobIds = {
  /** Prefixed: BullMQ refuses a custom id that is an integer, which a delivery id may be. */
  delivery: (deliveryId: string) => `delivery-${safe(deliveryId)}`,
  /** `reopened`: how often a withdrawn answer opened the gate again, so the answer after it resumes once too. */
  resume: (gateId: string, reopened = 0) => `resume-${safe(gateId)}${reopened > 0 ? `-r${reopened}` : ""}`,
  dispatch: (repo: string, issue: number, trigger: string) => `dispatch-${safe(repo)}#${issue}-${safe(trigger)}`,
  timeout: (gateId: string, sequence: number) => `timeout-${safe(gateId)}-${sequence}`,
  ladder: (gateId: string, step: number) => `ladder-${safe(gateId)}-${step}`,
  retry: (repo: string, issue: number, commentId: number) => `retry-${safe(repo)}#${issue}-c${commentId}`,
  /** One Slack post per gate, and one update per state it reaches (`state`), so a redelivered event mirrors once. */
  mirror: (type: "open" | "update", gateId: string, state = "") => `mirror-${type}-${safe(gateId)}${state ? `-${safe(state)}` : ""}`,
};
