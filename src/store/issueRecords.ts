import type { Redis } from "ioredis";
import type { BodyEdit, IssueRecord, TitleEdit } from "../domain.js";
import { issueKey, type IssueKeyRef } from "./issueKey.js";
import { withScripts, type ScriptArgs } from "./scriptedRedis.js";

/**
 * KEYS: issue. ARGV: field ("body" or "title"), its editor field, its kept field, the text as GitHub
 * shows it now, "foreign" or "own", editor, previous text.
 * An edit of the issue's body or title: by whom it belongs to (the body's author; for the title,
 * any person), their words again (the kept version is dropped); by anyone else, the last version
 * of theirs is kept: the previous one, unless that was already someone else's (then whatever was
 * kept stays, or none).
 */
const KEPT_TEXT_EDITED = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
if ARGV[5] == 'foreign' then
  if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 0 then redis.call('HSET', KEYS[1], ARGV[3], ARGV[7]) end
  redis.call('HSET', KEYS[1], ARGV[2], ARGV[6])
else
  redis.call('HDEL', KEYS[1], ARGV[2], ARGV[3])
end
return 1
`;

/**
 * KEYS: issue. ARGV: how many fields to set, those fields and values in pairs, then the fields to
 * delete. An event's picture of the issue in one command, where MULTI, HSET, HDEL and EXEC were four.
 */
const UPSERT_ISSUE = `
local sets = 1 + 2 * tonumber(ARGV[1])
if sets > 1 then redis.call('HSET', KEYS[1], unpack(ARGV, 2, sets)) end
if #ARGV > sets then redis.call('HDEL', KEYS[1], unpack(ARGV, sets + 1)) end
return 1
`;

interface IssueCommands {
  escKeptTextEdited(...args: ScriptArgs): Promise<number>;
  escUpsertIssue(...args: ScriptArgs): Promise<number>;
}

/** What the app knows of an issue (its hash, issueKey.ts): title, body and who last changed them, assignees, state, the awaiting label. */
export class IssueRecords {
  readonly #redis: Redis & IssueCommands;

  constructor(
    redis: Redis,
    readonly prefix: string,
  ) {
    this.#redis = withScripts<IssueCommands>(redis, {
      escKeptTextEdited: { numberOfKeys: 1, lua: KEPT_TEXT_EDITED },
      escUpsertIssue: { numberOfKeys: 1, lua: UPSERT_ISSUE },
    });
  }

  /** The issue's hash. */
  key(ref: IssueKeyRef): string {
    return issueKey(this.prefix, ref);
  }

  /**
   * Remembers the issue's installation, title and body so a spawn needs no GitHub read. Who last
   * changed the body is kept as it was, unless `bodyEdit` says (null: its author), in the same write.
   */
  async upsertIssue(
    record: Omit<IssueRecord, "nextRound" | "openGate" | "statusCommentId" | "state" | "bodyEdit" | "titleEdit"> & {
      state?: string;
      bodyEdit?: BodyEdit | null;
      titleEdit?: TitleEdit | null;
    },
  ): Promise<void> {
    const set: Record<string, string | number> = {
      // No assignees is no field (read back as none): a parked gate's issue hash stays a size smaller.
      ...(record.assignees.length > 0 ? { assignees: record.assignees.join(",") } : {}),
      ...(record.state ? { state: record.state } : {}),
      repo: record.repo,
      issue: record.issue,
      installationId: record.installationId,
      title: record.title,
      body: record.body,
      url: record.url,
      ...(record.author ? { author: record.author } : {}),
    };
    const drop: string[] = [];
    if (record.assignees.length === 0) drop.push("assignees");
    if (record.bodyEdit === null) drop.push("bodyEditor", "authorBody");
    if (record.bodyEdit) set.bodyEditor = record.bodyEdit.editor;
    if (record.bodyEdit?.authorBody !== undefined) set.authorBody = record.bodyEdit.authorBody;
    else if (record.bodyEdit) drop.push("authorBody");
    if (record.titleEdit === null) drop.push("titleEditor", "personsTitle");
    if (record.titleEdit) Object.assign(set, { titleEditor: record.titleEdit.editor, personsTitle: record.titleEdit.personsTitle });
    const pairs = Object.entries(set);
    await this.#redis.escUpsertIssue(this.key(record), pairs.length, ...pairs.flat(), ...drop);
  }

  /** A change of the issue's title (`issues.edited`), by a person or under a bot's name (src/gates/issueTitle.ts). */
  async issueTitleEdited(ref: IssueKeyRef, edit: { title: string; byBot: boolean; editor: string; previous: string }): Promise<void> {
    await this.#redis.escKeptTextEdited(
      this.key(ref),
      "title",
      "titleEditor",
      "personsTitle",
      edit.title,
      edit.byBot ? "foreign" : "own",
      edit.editor,
      edit.previous,
    );
  }

  /** An edit of the issue's body (`issues.edited`), by its author or by `editor`, another account (src/gates/issueBody.ts). */
  async issueBodyEdited(ref: IssueKeyRef, edit: { body: string; byAuthor: boolean; editor: string; previous: string }): Promise<void> {
    await this.#redis.escKeptTextEdited(
      this.key(ref),
      "body",
      "bodyEditor",
      "authorBody",
      edit.body,
      edit.byAuthor ? "own" : "foreign",
      edit.editor,
      edit.previous,
    );
  }

  async getIssue(ref: IssueKeyRef): Promise<IssueRecord | undefined> {
    return toIssue(await this.#redis.hgetall(this.key(ref)));
  }

  /**
   * Whether the app last put the awaiting label on ("on") or took it off / skipped it ("off"), or is
   * taking it off ("leaving": its own removal's webhook may come before "off" is written); undefined when unknown.
   */
  async awaitingLabel(ref: IssueKeyRef): Promise<"on" | "off" | "leaving" | undefined> {
    return labelValue(await this.#redis.hget(this.key(ref), "awaitingLabel"));
  }

  /** What deciding on the awaiting label reads, in one command: the issue's open gate and the label as the app last put it (see awaitingLabel). */
  async labelState(ref: IssueKeyRef): Promise<{ openGate?: string; awaitingLabel?: "on" | "off" | "leaving" }> {
    const [openGate, label] = await this.#redis.hmget(this.key(ref), "openGate", "awaitingLabel");
    const awaitingLabel = labelValue(label);
    return { ...(openGate ? { openGate } : {}), ...(awaitingLabel ? { awaitingLabel } : {}) };
  }

  async setAwaitingLabel(ref: IssueKeyRef, value: "on" | "off" | "leaving"): Promise<void> {
    await this.#redis.hset(this.key(ref), "awaitingLabel", value);
  }
}

/** An issue read back from its hash; undefined when Redis has none. */
export function toIssue(h: Record<string, string>): IssueRecord | undefined {
  if (!h.repo) return undefined;
  return {
    repo: h.repo,
    issue: Number(h.issue),
    installationId: Number(h.installationId),
    title: h.title ?? "",
    body: h.body ?? "",
    url: h.url ?? "",
    ...(h.author ? { author: h.author } : {}),
    ...(h.titleEditor ? { titleEdit: { editor: h.titleEditor, personsTitle: h.personsTitle ?? "" } } : {}),
    ...(h.bodyEditor ? { bodyEdit: { editor: h.bodyEditor, ...(h.authorBody !== undefined ? { authorBody: h.authorBody } : {}) } } : {}),
    assignees: h.assignees ? h.assignees.split(",") : [],
    state: h.state ?? "open",
    openGate: h.openGate || undefined,
    nextRound: Number(h.nextRound ?? 0),
    statusCommentId: h.statusCommentId ? Number(h.statusCommentId) : undefined,
  };
}

function labelValue(value: string | null | undefined): "on" | "off" | "leaving" | undefined {
  return value === "on" || value === "off" || value === "leaving" ? value : undefined;
}
