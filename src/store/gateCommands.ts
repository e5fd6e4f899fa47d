import type { Redis } from "ioredis";
import {
  CANCEL_GATE,
  CLAIM_RESUME,
  FINISH_RESUME,
  INDEX_OPEN_REPOS,
  LAST_GATE,
  MARK_OVERDUE,
  OPEN_GATE,
  RECORD_ANSWER,
  RECORD_SUPERSEDED_ANSWER,
  RECORD_VOTE,
  RESTORE_GATE,
  REVISE_ANSWERS,
} from "./gateScripts.js";
import { withScripts, type ScriptArgs } from "./scriptedRedis.js";

/**
 * The gate scripts (gateScripts.ts) as commands on the connection: each one's name, how many of its
 * arguments are keys, and the shape of its reply, so GateRecords calls them typed.
 */
export interface GateCommands {
  escOpenGate(...args: ScriptArgs): Promise<[string, string]>;
  escRecordAnswer(...args: ScriptArgs): Promise<string[]>;
  escRecordVote(...args: ScriptArgs): Promise<string[]>;
  escReviseAnswers(...args: ScriptArgs): Promise<[string, string]>;
  escClaimResume(...args: ScriptArgs): Promise<string>;
  escCancelGate(...args: ScriptArgs): Promise<number>;
  escRestoreGate(...args: ScriptArgs): Promise<number>;
  escFinishResume(...args: ScriptArgs): Promise<number>;
  escMarkOverdue(...args: ScriptArgs): Promise<number>;
  escRecordSupersededAnswer(...args: ScriptArgs): Promise<string>;
  escIndexOpenRepos(...args: ScriptArgs): Promise<string[]>;
  escLastGate(...args: ScriptArgs): Promise<string[]>;
}

const GATE_SCRIPTS = {
  escOpenGate: { numberOfKeys: 5, lua: OPEN_GATE },
  escRecordAnswer: { numberOfKeys: 4, lua: RECORD_ANSWER },
  escRecordVote: { numberOfKeys: 2, lua: RECORD_VOTE },
  escReviseAnswers: { numberOfKeys: 5, lua: REVISE_ANSWERS },
  escClaimResume: { numberOfKeys: 1, lua: CLAIM_RESUME },
  escCancelGate: { numberOfKeys: 4, lua: CANCEL_GATE },
  escRestoreGate: { numberOfKeys: 3, lua: RESTORE_GATE },
  escFinishResume: { numberOfKeys: 1, lua: FINISH_RESUME },
  escMarkOverdue: { numberOfKeys: 1, lua: MARK_OVERDUE },
  escRecordSupersededAnswer: { numberOfKeys: 1, lua: RECORD_SUPERSEDED_ANSWER },
  escIndexOpenRepos: { numberOfKeys: 2, lua: INDEX_OPEN_REPOS },
  escLastGate: { numberOfKeys: 1, lua: LAST_GATE },
};

/** The connection with the gate scripts defined on it (once per connection). */
export function withGateScripts(redis: Redis): Redis & GateCommands {
  return withScripts<GateCommands>(redis, GATE_SCRIPTS);
}
