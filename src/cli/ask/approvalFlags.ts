import { z } from "zod";
import { APPROVAL_KIND, MAX_APPROVERS } from "../../domain.js";
import { UsageError } from "../usage.js";
import type { QuestionDraft } from "./questionFlags.js";

const ApproversFlag = z
  .string()
  .regex(/^\s*\d+\s*$/, { error: (issue) => `--approvers must be a positive integer (got ${JSON.stringify(issue.input)}).` })
  .transform(Number)
  .pipe(
    z
      .number()
      .int()
      .min(1, { error: "--approvers must be at least 1 (got 0)." })
      .max(MAX_APPROVERS, { error: (issue) => `--approvers must be at most ${MAX_APPROVERS} (got ${String(issue.input)}).` }),
  );

/** The flags that shape an approval, checked together so each message names the flag to change. */
const ApprovalFlags = z
  .object({
    kind: z.string().optional(),
    approvers: ApproversFlag.optional(),
    questions: z.array(z.object({ options: z.array(z.string()), default: z.string().optional() })),
  })
  .superRefine((flags, ctx) => {
    const problem = (message: string) => ctx.addIssue({ code: "custom", message });
    if (flags.kind !== APPROVAL_KIND) {
      if (flags.approvers !== undefined) problem(`--approvers needs --kind ${APPROVAL_KIND} (got --kind ${flags.kind ?? "question"}).`);
      return;
    }
    if (flags.questions.length > 1) problem(`--kind ${APPROVAL_KIND} takes exactly one --question, the thing to approve (got ${flags.questions.length}).`);
    if (flags.questions.some((q) => q.options.length > 0)) problem(`--option is not allowed with --kind ${APPROVAL_KIND}: people reply approve or deny.`);
    if (flags.questions.some((q) => q.default !== undefined)) problem(`--default is not allowed with --kind ${APPROVAL_KIND}: nobody approves by silence.`);
  });

/** Validates --kind and --approvers against the questions; returns the approvers count, if given. */
export function approvalFlags(kind: string | undefined, approvers: string | undefined, questions: QuestionDraft[]): number | undefined {
  const parsed = ApprovalFlags.safeParse({ kind, approvers, questions });
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((issue) => issue.message).join(" "));
  return parsed.data.approvers;
}
