import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

/** The issue a marker belongs to: a marker signed for one issue does not verify on another. */
export interface MarkerScope {
  repo: string;
  issue: number;
}

const SALT = "escalation/comment-state";
const INFO = "marker-hmac-sha256 v1";

/**
 * The key that signs the state the app writes into comments (src/protocol/marker.ts). Derived
 * (HKDF-SHA256) from a server secret the agent never sees, so an agent acting as the App's bot
 * can copy a marker but not make one. The key bytes stay in a private field: logging or
 * serialising the configuration never shows them.
 */
export class StateKey {
  readonly #key: Buffer;

  private constructor(key: Buffer) {
    this.#key = key;
  }

  static derive(secret: string): StateKey {
    return new StateKey(Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), SALT, INFO, 32)));
  }

  /** base64url HMAC-SHA256 of the canonical form: which repository, issue and kind, and the payload as written. */
  sign(scope: MarkerScope, kind: string, encodedPayload: string): string {
    return createHmac("sha256", this.#key)
      .update(canonical(scope, kind, encodedPayload))
      .digest("base64url");
  }

  verify(scope: MarkerScope, kind: string, encodedPayload: string, signature: string): boolean {
    const expected = Buffer.from(this.sign(scope, kind, encodedPayload), "utf8");
    const given = Buffer.from(signature, "utf8");
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  toJSON(): string {
    return "[state key]";
  }
}

/** One line per field; GitHub's repository names are case-insensitive, and none holds a newline. */
function canonical(scope: MarkerScope, kind: string, encodedPayload: string): string {
  return ["escalation-marker v1", scope.repo.toLowerCase(), String(scope.issue), kind, encodedPayload].join("\n");
}
