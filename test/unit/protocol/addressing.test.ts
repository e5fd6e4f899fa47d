import { describe, expect, it } from "vitest";
import { addressingOf, appMentionNames, isReactionOnly } from "../../../src/protocol/addressing.js";

const APP = appMentionNames("Escalation-Demo[bot]");

describe("appMentionNames", () => {
  it("the bot login and the slug, in lower case", () => {
    expect(APP).toEqual(["escalation-demo[bot]", "escalation-demo"]);
  });
});

describe("addressingOf", () => {
  it.each<[string, string, ReturnType<typeof addressingOf>]>([
    ["no mention", "2", { to: "nobody", text: "2" }],
    ["a mention later on", "2, as @alice said", { to: "nobody", text: "2, as @alice said" }],
    ["an e-mail address is no mention", "me@example.com knows", { to: "nobody", text: "me@example.com knows" }],
    ["the slug", "@escalation-demo 2", { to: "app", text: "2" }],
    ["the bot login, in another case", "@Escalation-Demo[bot]: SQLite", { to: "app", text: "SQLite" }],
    ["the slug, then 'answer:'", "@escalation-demo answer: SQLite", { to: "app", text: "SQLite" }],
    ["the slug, then 'answer'", "@escalation-demo answer SQLite", { to: "app", text: "SQLite" }],
    ["the slug on its own line", "@escalation-demo\n1. a\n2. b", { to: "app", text: "1. a\n2. b" }],
    ["the app twice", "@escalation-demo @escalation-demo[bot] 2", { to: "app", text: "2" }],
    ["the app, then someone else in copy", "@escalation-demo @alice 2", { to: "app", text: "2" }],
    ["someone else, then the app", "@alice @escalation-demo 2", { to: "someone else", login: "alice" }],
    ["someone else", "@alice do we need this?", { to: "someone else", login: "alice" }],
    ["a longer login that starts with the slug", "@escalation-demo-x 2", { to: "someone else", login: "escalation-demo-x" }],
    ["a team", "@acme/db-team thoughts?", { to: "someone else", login: "acme/db-team" }],
    ["another bot", "@dependabot[bot] rebase", { to: "someone else", login: "dependabot[bot]" }],
    ["only someone's mention", "@alice", { to: "mentions only" }],
    ["only mentions, with punctuation", "@alice, @bob!", { to: "mentions only" }],
    ["only the app's mention", "@escalation-demo", { to: "mentions only" }],
  ])("%s", (_name, visible, expected) => {
    expect(addressingOf(visible, APP)).toEqual(expected);
  });
});

describe("isReactionOnly", () => {
  it.each(["👍", "👎🏿", "🎉🚀", "🇩🇪", ":+1:", ":thumbsup: :tada:", "+1", "-1", "+1!", "+1 👍"])("%s is a reaction", (text) => {
    expect(isReactionOnly(text)).toBe(true);
  });

  it.each(["", "2", "+10", "1+1", "-1 day", "👍 SQLite", "ok", ":not a shortcode", "2\u20E3"])("%s is not", (text) => {
    expect(isReactionOnly(text)).toBe(false);
  });
});
