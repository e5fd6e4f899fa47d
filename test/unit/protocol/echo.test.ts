import { describe, expect, it } from "vitest";
import type { Question } from "../../../src/domain.js";
import { describeReading, echoLines, needsEcho, readingSummary, renderEcho } from "../../../src/protocol/echo.js";
import { parseReply } from "../../../src/protocol/reply.js";

const db: Question = { text: "Which database?", options: ["Postgres", "SQLite"] };
const free: Question = { text: "Anything else?", options: [] };

const read = (body: string, questions: Question[] = [db]) => parseReply(body, questions).answers;

describe("the echo of a reply", () => {
  it.each<[string, string, Question[], boolean]>([
    ["the option's number alone", "2", [db], false],
    ["the option's label alone, emphasised and punctuated", "**sqlite**!", [db], false],
    ["an option with words after it", "sqlite please, embedded is fine", [db], true],
    ["free text on a question with options", "whatever is fastest", [db], true],
    ["free text on a question without options", "keep it small", [free], false],
  ])("%s: echoed %s", (_name, body, questions, expected) => {
    const [answer] = read(body, questions);
    expect(needsEcho(answer!, questions[0]!)).toBe(expected);
    expect(renderEcho("alice", read(body, questions), questions) !== undefined).toBe(expected);
  });

  it("says which option was chosen and keeps the note", () => {
    expect(renderEcho("alice", read("sqlite please, embedded is fine"), [db])).toBe(
      "📝 @alice: Recorded as **2. SQLite**, with the note `please, embedded is fine`.\n\nNot what you meant? Reply `/reopen <corrected answer>` (like `/reopen 1`) and the agent is re-spawned with the correction.",
    );
  });

  it.each([
    ["no option named", "whatever is fastest", "free text (no option matched): `whatever is fastest`"],
    ["one option named later", "I think SQLite", "free text (it names 2. SQLite but does not start with it, so no option was chosen): `I think SQLite`"],
    [
      "several options named",
      "SQLite or Postgres, whichever",
      "free text (it names 1. Postgres and 2. SQLite, so no option was chosen): `SQLite or Postgres, whichever`",
    ],
  ])("free text says why no option was chosen: %s", (_name, body, expected) => {
    expect(describeReading(read(body)[0]!, db)).toBe(expected);
  });

  it("shows the human's words inside inline code: no Markdown, no mention, cut when long", () => {
    const [answer] = read(`SQLite, ask @bob about \`wal\` mode\n\n${"x".repeat(300)}`);
    const reading = describeReading(answer!, db);
    expect(reading).toMatch(/^\*\*2\. SQLite\*\*, with the note `ask @bob about ʼwalʼ mode x+…`$/);
    expect(reading.length).toBeLessThan(260);
  });

  it("lists every answer of a reply to several questions once one was interpreted", () => {
    const questions = [db, free];
    const answers = read("1. sqlite, embedded\n2. yes", questions);
    expect(echoLines(answers, questions)).toEqual(["- **Q1** recorded as **2. SQLite**, with the note `embedded`", "- **Q2** recorded as text `yes`"]);
    expect(echoLines(read("1. 2\n2. yes", questions), questions)).toEqual([]);
    expect(readingSummary(answers, questions)).toBe("Q1 2. SQLite (with a note), Q2 free text");
  });
});
