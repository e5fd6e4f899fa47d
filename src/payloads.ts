import { z } from "zod";

/** Job payloads. Stored in clear text in Redis: never put a token or secret here. */

const Actor = z.object({ login: z.string().min(1).max(100), type: z.string().max(40) });

const IssueFields = z.object({
  number: z.number().int().positive(),
  title: z.string().max(1024),
  body: z.string().max(65_536),
  url: z.string().max(2048),
  /** Who opened the issue (wrote its body). */
  author: z.string().max(100).optional(),
  /** GitHub's GraphQL id of the issue: a rebuild reads who last edited its body by it. */
  nodeId: z.string().max(200).optional(),
  /** GitHub leaves it out of some payloads (`issues.labeled`): then the state last seen stands. */
  state: z.string().max(20).optional(),
  isPullRequest: z.boolean(),
  assignees: z.array(z.string().max(100)).max(10),
  labels: z.array(z.string().max(100)).max(100),
});

/** Where on a pull request a reply was written, other than its conversation. */
const ReplyPlace = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("review") }),
  z.object({
    kind: z.literal("reviewComment"),
    path: z.string().max(1024),
    /** The diff line the comment is on; absent on a comment on the whole file or an outdated line. */
    line: z.number().int().positive().optional(),
    side: z.enum(["LEFT", "RIGHT"]).optional(),
  }),
]);
export type ReplyPlace = z.infer<typeof ReplyPlace>;

/** A reply's id as the loop records it (src/github/replyIds.ts): an issue comment's own, a review's negative. */
const ReplyId = z
  .number()
  .int()
  .refine((id) => id !== 0, "a reply id is never 0");

const Common = {
  deliveryId: z.string().min(1).max(200),
  installationId: z.number().int().positive(),
  repo: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/),
  issue: IssueFields,
  sender: Actor,
  receivedAt: z.number(),
};

export const InboundEventSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("comment"),
    action: z.enum(["created", "edited", "deleted"]),
    ...Common,
    comment: z.object({
      id: ReplyId,
      body: z.string().max(65_536),
      url: z.string().max(2048),
      createdAt: z.string().max(40),
      author: Actor,
      /** Absent for an issue comment; a review's body, or a review comment on a line of the diff. */
      in: ReplyPlace.optional(),
    }),
  }),
  z.object({ kind: z.literal("labeled"), label: z.string().max(100), ...Common }),
  /** A label taken off by a bot (which may be the agent, acting as the App's bot). */
  z.object({ kind: z.literal("unlabeled"), label: z.string().max(100), ...Common }),
  z.object({ kind: z.literal("closed"), ...Common }),
  /** The issue's title or body was edited (`issues.edited`); `previousBody` only when its body changed. */
  z.object({ kind: z.literal("edited"), ...Common, previousBody: z.string().max(65_536).optional(), previousTitle: z.string().max(1024).optional() }),
  /** New commits on a pull request (`pull_request.synchronize`): its open question may be stale. */
  z.object({ kind: z.literal("pushed"), ...Common, headSha: z.string().regex(/^[0-9a-f]{7,64}$/), pushedAt: z.number() }),
]);
export type InboundEvent = z.infer<typeof InboundEventSchema>;
export type CommentEvent = Extract<InboundEvent, { kind: "comment" }>;
export type PushedEvent = Extract<InboundEvent, { kind: "pushed" }>;
export type IssueEditedEvent = Extract<InboundEvent, { kind: "edited" }>;

export const SpawnJobSchema = z.object({
  installationId: z.number().int().positive(),
  repo: z.string(),
  issue: z.number().int().positive(),
  trigger: z.discriminatedUnion("type", [
    z.object({ type: z.literal("resume"), gateId: z.string() }),
    z.object({ type: z.literal("dispatch"), by: z.string(), commentId: z.number().int().positive().optional(), retry: z.boolean().optional() }),
  ]),
  /** When the triggering webhook arrived, for reply→spawn latency. */
  receivedAt: z.number(),
});
export type SpawnJob = z.infer<typeof SpawnJobSchema>;

export const FeedbackOpSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("react"), commentId: z.number().int().positive(), content: z.enum(["eyes", "rocket", "confused", "+1"]) }),
  /** `whileRound`: put back only while that gate's round still runs (src/gates/labelTakenOff.ts). */
  z.object({ type: z.literal("addLabel"), label: z.string(), whileRound: z.string().max(40).optional() }),
  z.object({ type: z.literal("removeLabel"), label: z.string() }),
  /** `echoOf`: the reply whose words the comment quotes, so they can be taken off again (redactEcho). */
  z.object({ type: z.literal("comment"), body: z.string().max(65_536), echoOf: ReplyId.optional() }),
  /** The reply `of` was deleted or edited: the app's comments quoting it get `body` instead. */
  z.object({ type: z.literal("redactEcho"), of: ReplyId, body: z.string().max(65_536) }),
  /** Re-render the status comment from the issue's status log up to line `seq`. */
  z.object({ type: z.literal("status"), seq: z.number().int().nonnegative() }),
]);
export type FeedbackOp = z.infer<typeof FeedbackOpSchema>;

export const TimeoutJobSchema = z.object({ gateId: z.string().min(1).max(64), sequence: z.number().int().nonnegative() });
export type TimeoutJob = z.infer<typeof TimeoutJobSchema>;

/** One rung of a gate's reminder ladder: the step carries its own definition, so a changed config does not renumber queued steps. */
export const LadderJobSchema = z.object({
  gateId: z.string().min(1).max(64),
  step: z.number().int().nonnegative().max(20),
  mention: z.array(z.string().max(100)).max(10).optional(),
  then: z.enum(["default", "overdue"]).optional(),
});
export type LadderJob = z.infer<typeof LadderJobSchema>;

/** A Slack mirror job: post the gate's message, or update it to the gate's state now. */
export const MirrorJobSchema = z.object({ type: z.enum(["open", "update"]), gateId: z.string().min(1) });
export type MirrorJob = z.infer<typeof MirrorJobSchema>;
