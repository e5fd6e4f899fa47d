import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { maskSecrets } from "../../../src/agent/maskSecrets.js";

const alnum = (n: number) => "aB3".repeat(Math.ceil(n / 3)).slice(0, n);

describe("maskSecrets: token shapes", () => {
  it.each<[string, string, string]>([
    ["a classic PAT", `token=ghp_${alnum(36)} end`, "token=*** end"],
    ["an OAuth token", `gho_${alnum(36)}`, "***"],
    ["a user-to-server token", `ghu_${alnum(36)}`, "***"],
    ["an installation token", `push failed for ghs_${alnum(36)}.`, "push failed for ***."],
    ["a refresh token", `ghr_${alnum(76)}`, "***"],
    ["a fine-grained PAT", `github_pat_11ABC${alnum(20)}_${alnum(59)}`, "***"],
    ["a Slack bot token", `xoxb-1234567890-abcdefghij`, "***"],
    ["two tokens on one line", `ghp_${alnum(36)} and ghs_${alnum(36)}`, "*** and ***"],
    ["a bearer header, keeping the header name", `Authorization: Bearer eyJhbGciOi.JIUzI1NiJ9.x "next"`, `Authorization: Bearer *** "next"`],
    ["a token header in lower case", `authorization: token abc123`, `authorization: token ***`],
  ])("masks %s", (_name, text, expected) => {
    expect(maskSecrets(text)).toBe(expected);
  });

  it("masks a whole PEM private key block, keeping the text around it", () => {
    const { privateKey } = generateKeyPairSync("rsa", {
      modulusLength: 1024,
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
    });
    const out = maskSecrets(`before\n${privateKey}after`);
    expect(out).toBe("before\n***\nafter");
    expect(out).not.toContain("PRIVATE KEY");
  });

  it.each<[string, string]>([
    ["plain prose", "The build passed in 3m 12s."],
    ["a too-short gh-like word", "ghp_short"],
    ["an unknown prefix", `ghx_${alnum(36)}`],
    ["a git sha", "commit 9fceb02d0ae598e95dc970b74767f19372d61af8"],
    ["a token glued to more word characters", `xghp_${alnum(36)}`],
  ])("leaves %s alone", (_name, text) => {
    expect(maskSecrets(text)).toBe(text);
  });
});

describe("maskSecrets: given secrets", () => {
  it("masks every occurrence of each given secret of 8+ characters", () => {
    expect(maskSecrets("pw=hunter2hunter2; again hunter2hunter2", ["hunter2hunter2"])).toBe("pw=***; again ***");
  });

  it("masks secrets containing regex metacharacters literally", () => {
    expect(maskSecrets("key (a+b)*[c]$ here", ["(a+b)*[c]$"])).toBe("key *** here");
  });

  it("ignores secrets shorter than 8 characters (they would mask ordinary words)", () => {
    expect(maskSecrets("the agent ran", ["agent", "", "ran"])).toBe("the agent ran");
  });

  it("masks the given secret and token shapes together", () => {
    expect(maskSecrets(`s=my-webhook-secret t=ghs_${alnum(36)}`, ["my-webhook-secret"])).toBe("s=*** t=***");
  });
});
