import type { Redis } from "ioredis";
import type { HumanNote } from "../domain.js";
import { issueKey, type IssueKeyRef } from "./issueKey.js";
import { withScripts, type ScriptArgs } from "./scriptedRedis.js";

/** List: notes humans left with /note, folded into the next spawn task. */
export function notesKey(prefix: string, ref: IssueKeyRef): string {
  return `${issueKey(prefix, ref)}:notes`;
}

/**
 * KEYS: notes. ARGV: url (the note's comment), text ('' when the comment was deleted), deliveryId
 * (the event that brought the text, '' for none). A /note was edited or deleted: every later task
 * gets the new text, or is told only that a note was withdrawn (its text and audit hash go).
 * Returns how many notes changed.
 */
const REVISE_NOTE = `
local changed = 0
for i, raw in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local note = cjson.decode(raw)
  if note.url == ARGV[1] then
    note.sha256 = nil
    note.text = ARGV[2]
    note.deliveryId = ARGV[3] ~= '' and ARGV[3] or nil
    note.withdrawn = ARGV[2] == '' or nil
    redis.call('LSET', KEYS[1], i - 1, cjson.encode(note))
    changed = changed + 1
  end
end
return changed
`;

/**
 * KEYS: notes. ARGV: url, login. The note of comment `url` stands though `login`, not its author,
 * deleted the comment: it is marked so (`deletedBy`), and a rebuild does not withdraw it.
 * Returns how many notes were marked.
 */
const KEEP_DELETED_NOTE = `
local marked = 0
for i, raw in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local note = cjson.decode(raw)
  if note.url == ARGV[1] and not note.withdrawn then
    note.deletedBy = ARGV[2]
    redis.call('LSET', KEYS[1], i - 1, cjson.encode(note))
    marked = marked + 1
  end
end
return marked
`;

interface NoteCommands {
  escReviseNote(...args: ScriptArgs): Promise<number>;
  escKeepDeletedNote(...args: ScriptArgs): Promise<number>;
}

/** The notes humans left on an issue with /note, and their edits and withdrawals. */
export class IssueNotes {
  readonly #redis: Redis & NoteCommands;

  constructor(
    redis: Redis,
    readonly prefix: string,
  ) {
    this.#redis = withScripts<NoteCommands>(redis, {
      escReviseNote: { numberOfKeys: 1, lua: REVISE_NOTE },
      escKeepDeletedNote: { numberOfKeys: 1, lua: KEEP_DELETED_NOTE },
    });
  }

  async addNote(ref: IssueKeyRef, note: HumanNote): Promise<void> {
    await this.#redis.rpush(notesKey(this.prefix, ref), JSON.stringify(note));
  }

  /** A /note's comment was edited (its new guidance) or deleted (""): see REVISE_NOTE. Returns how many notes changed. */
  async reviseNote(ref: IssueKeyRef, url: string, text: string, deliveryId = ""): Promise<number> {
    return Number(await this.#redis.escReviseNote(notesKey(this.prefix, ref), url, text, deliveryId));
  }

  /** A /note's comment was deleted by `by`, not its author: the note stands, marked (see KEEP_DELETED_NOTE). */
  async keepDeletedNote(ref: IssueKeyRef, url: string, by: string): Promise<number> {
    return Number(await this.#redis.escKeepDeletedNote(notesKey(this.prefix, ref), url, by));
  }

  async notes(ref: IssueKeyRef): Promise<HumanNote[]> {
    return (await this.#redis.lrange(notesKey(this.prefix, ref), 0, -1)).map((n) => JSON.parse(n) as HumanNote);
  }
}
