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

describe(".github/escalation.yml: approvals", () => {
  it("defaults to one approval and any-deny", () => {
    expect(resolveRepoSettings({}, defaults).settings.approvals).toEqual({ approvers: 1, policy: "any-deny" });
  });

  it("takes the count and the policy", () => {
    expect(resolveRepoSettings({ approvals: { approvers: 3, policy: "majority" } }, defaults)).toEqual({
      settings: expect.objectContaining({ approvals: { approvers: 3, policy: "majority" } }),
    });
  });

  it.each<[string, unknown, RegExp]>([
    ["zero approvers", { approvals: { approvers: 0 } }, /approvals\.approvers/],
    ["a fractional count", { approvals: { approvers: 1.5 } }, /approvals\.approvers/],
    ["an unknown policy", { approvals: { policy: "unanimous" } }, /approvals\.policy/],
    ["an unknown key", { approvals: { quorum: 2 } }, /quorum/],
  ])("refuses %s, naming the key, and keeps the defaults", (_name, raw, message) => {
    const result = resolveRepoSettings(raw, defaults);
    expect(result.problem).toMatch(message);
    expect(result.settings.approvals).toEqual({ approvers: 1, policy: "any-deny" });
  });
});
