import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/env.js";
import { resolveRepoSettings, serverDefaults } from "../../../src/config/repoConfig.js";

const { privateKey: PEM } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  publicKeyEncoding: { type: "spki", format: "pem" },
  privateKeyEncoding: { type: "pkcs1", format: "pem" },
});
const defaults = serverDefaults(loadConfig({ APP_ID: "1", WEBHOOK_SECRET: "s", PRIVATE_KEY: PEM }));
const withLadder = (ladder: unknown) => resolveRepoSettings({ reminders: { ladder } }, defaults);

describe("reminders.ladder in .github/escalation.yml", () => {
  it("resolves each step to seconds after the ask, a mention list, or the last step's outcome", () => {
    const result = withLadder([
      { after: "4h", mention: "assignees" },
      { after: "1d", mention: ["@acme/oncall", "answerers"] },
      { after: "2d", then: "overdue" },
    ]);
    expect(result.problem).toBeUndefined();
    expect(result.settings.reminderLadder).toEqual([
      { afterSeconds: 14_400, mention: ["assignees"] },
      { afterSeconds: 86_400, mention: ["@acme/oncall", "answerers"] },
      { afterSeconds: 172_800, then: "overdue" },
    ]);
  });

  it("has no ladder by default", () => {
    expect(resolveRepoSettings({}, defaults).settings.reminderLadder).toEqual([]);
  });

  it.each<[string, unknown, RegExp]>([
    [
      "steps out of order",
      [
        { after: "1d", mention: "assignees" },
        { after: "4h", mention: "@acme/oncall" },
      ],
      /reminders\.ladder\.1\.after.*later than the step before \(1d\)/,
    ],
    [
      "then before the last step",
      [
        { after: "1h", then: "default" },
        { after: "2h", mention: "assignees" },
      ],
      /reminders\.ladder\.0\.then.*only the last step/,
    ],
    ["a step with both mention and then", [{ after: "1h", mention: "assignees", then: "default" }], /exactly one of mention .* or then/],
    ["a step with neither", [{ after: "1h" }], /exactly one of mention/],
    [
      "a mention that is no handle",
      [{ after: "1h", mention: "everyone" }],
      /reminders\.ladder\.0\.mention.*must be assignees, answerers, @login or @org\/team \(got "everyone"\)/,
    ],
    ["a bad duration", [{ after: "soon", mention: "assignees" }], /must be a duration like 30m/],
    ["an unknown outcome", [{ after: "1h", then: "close" }], /reminders\.ladder\.0\.then/],
  ])("refuses %s, naming the key, and keeps the defaults", (_name, ladder, message) => {
    const result = withLadder(ladder);
    expect(result.problem).toMatch(message);
    expect(result.settings.reminderLadder).toEqual([]);
  });
});
