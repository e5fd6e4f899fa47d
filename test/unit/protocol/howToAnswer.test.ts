import { describe, expect, it } from "vitest";
import { renderHowToAnswer } from "../../../src/protocol/howToAnswer.js";

const TAIL = "To talk without answering, start the comment with `/discuss` or with `@someone`; `/help` lists the rest.";

describe("renderHowToAnswer", () => {
  it("one question: its own options as the example", () => {
    expect(renderHowToAnswer("alice", [{ text: "Which?", options: ["SQLite", "Postgres"] }])).toBe(
      `@alice that was not taken as an answer. To answer, reply with an option's number or name, like \`2\` or \`SQLite\`. ${TAIL}`,
    );
  });

  it("one option: its number is 1", () => {
    expect(renderHowToAnswer("alice", [{ text: "Which?", options: ["Only`this"] }])).toContain("like `1` or `Onlyʼthis`");
  });

  it("several questions: one line per question, from the first question with options", () => {
    expect(
      renderHowToAnswer("bob", [
        { text: "Why?", options: [] },
        { text: "Which?", options: ["Go", "Rust"] },
      ]),
    ).toBe(`@bob that was not taken as an answer. To answer, reply with one line per question, like \`2. 1\` or \`2. Go\`. ${TAIL}`);
  });

  it("no options: answer as text", () => {
    expect(renderHowToAnswer("carol", [{ text: "Why?", options: [] }])).toBe(
      `@carol that was not taken as an answer. To answer, reply with your answer as text. ${TAIL}`,
    );
  });
});
