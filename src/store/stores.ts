import type { Redis } from "ioredis";
import { AccessCache } from "./accessCache.js";
import { CommentMarks } from "./commentMarks.js";
import { GateRecords } from "./gateRecords.js";
import { IssueNotes } from "./issueNotes.js";
import { IssueRecords } from "./issueRecords.js";
import { IssueRounds } from "./issueRounds.js";
import { NamespaceMarks } from "./namespaceMarks.js";
import { SlackMessages } from "./slackMessages.js";
import { StatusLog } from "./statusLog.js";
import { WriteBudgetLog } from "./writeBudgetLog.js";

/**
 * The app's Redis records, one aggregate each, on one connection and key prefix. Each aggregate is
 * the only writer of its keys (the issue's hash is shared by field, see issueKey.ts); a script that
 * must also touch another's keys to stay atomic lives with the aggregate that drives it and says so.
 */
export interface Stores {
  gates: GateRecords;
  issues: IssueRecords;
  rounds: IssueRounds;
  notes: IssueNotes;
  statusLog: StatusLog;
  commentMarks: CommentMarks;
  accessCache: AccessCache;
  writeBudgetLog: WriteBudgetLog;
  namespaceMarks: NamespaceMarks;
  slackMessages: SlackMessages;
}

export function openStores(redis: Redis, prefix: string): Stores {
  return {
    gates: new GateRecords(redis, prefix),
    issues: new IssueRecords(redis, prefix),
    rounds: new IssueRounds(redis, prefix),
    notes: new IssueNotes(redis, prefix),
    statusLog: new StatusLog(redis, prefix),
    commentMarks: new CommentMarks(redis, prefix),
    accessCache: new AccessCache(redis, prefix),
    writeBudgetLog: new WriteBudgetLog(redis, prefix),
    namespaceMarks: new NamespaceMarks(redis, prefix),
    slackMessages: new SlackMessages(redis, prefix),
  };
}
