import { ProtocolError } from "../errors.js";
import type { MarkerScope, StateKey } from "./stateKey.js";

/**
 * Hidden markers are HTML comments carrying base64url JSON: invisible on the rendered issue,
 * safe inside Markdown (base64url has no "--" or ">"), and unambiguous to find.
 * This module is the only place that knows the marker syntax.
 *
 * Asks are the agent's (it posts them with the App's token) and are not signed. The state the app
 * writes for itself (status, ladder, notice) carries ` sig=<HMAC>` after the payload (see
 * stateKey.ts): a rebuild trusts it only when the signature verifies for that issue.
 */
export type MarkerKind = "ask" | "status" | "ladder" | "notice";
export type SignedKind = Exclude<MarkerKind, "ask">;

/** The key and the issue a signed marker is written for or read on. */
export interface MarkerSeal {
  key: StateKey;
  scope: MarkerScope;
}

/** The seal for an issue (only its repository and number count, whatever else `scope` carries). */
export function sealOf(key: StateKey, scope: MarkerScope): MarkerSeal {
  return { key, scope: { repo: scope.repo, issue: scope.issue } };
}

/** Asks stay small; the status state may use most of a comment (GitHub's limit is 65,536). */
export const MAX_MARKER_CHARS: Record<MarkerKind, number> = { ask: 16_384, status: 49_152, ladder: 512, notice: 4096 };
const MARKER_PATTERN = /<!--\s*escalation:(ask|status|ladder|notice):v1\s+([A-Za-z0-9_-]{1,49152})(?:\s+sig=([A-Za-z0-9_-]{1,128}))?\s*-->/g;

function encode(kind: MarkerKind, payload: unknown): string {
  const encoded = Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
  if (encoded.length > MAX_MARKER_CHARS[kind]) {
    throw new ProtocolError(
      `The ${kind} marker would be ${encoded.length} characters; keep it under ${MAX_MARKER_CHARS[kind]} (shorten the questions or options).`,
    );
  }
  return encoded;
}

/** An unsigned marker: what an agent's ask carries (and what app versions before signing wrote). */
export function renderMarker(kind: MarkerKind, payload: unknown): string {
  return `<!-- escalation:${kind}:v1 ${encode(kind, payload)} -->`;
}

/** A marker of the app's own state, signed for the issue it is written on. */
export function renderSignedMarker(kind: SignedKind, payload: unknown, seal: MarkerSeal): string {
  const encoded = encode(kind, payload);
  return `<!-- escalation:${kind}:v1 ${encoded} sig=${seal.key.sign(seal.scope, kind, encoded)} -->`;
}

interface Found {
  encoded: string;
  signature: string | undefined;
}

function lastOf(body: string, kind: MarkerKind): Found | undefined {
  let last: Found | undefined;
  for (const match of body.matchAll(MARKER_PATTERN)) {
    if (match[1] === kind) last = { encoded: match[2]!, signature: match[3] };
  }
  if (last && last.encoded.length > MAX_MARKER_CHARS[kind]) throw new ProtocolError(`The ${kind} marker is longer than ${MAX_MARKER_CHARS[kind]} characters.`);
  return last;
}

function decode(kind: MarkerKind, encoded: string): unknown {
  try {
    return JSON.parse(Buffer.from(encoded, "base64url").toString("utf8"));
  } catch (error) {
    throw new ProtocolError(`The ${kind} marker is not valid base64url JSON; it was probably edited by hand.`, { cause: error });
  }
}

/**
 * Returns the decoded JSON of the last marker of `kind` in `body`, `undefined` when there is none,
 * and throws ProtocolError when a marker is present but is not valid JSON. It says nothing about
 * who wrote it: the app's own state is read with readSignedMarker.
 */
export function findMarker(body: string, kind: MarkerKind): unknown {
  const last = lastOf(body, kind);
  return last === undefined ? undefined : decode(kind, last.encoded);
}

/** What the last signed-kind marker of a comment is worth. */
export type MarkerReading =
  | { outcome: "absent" }
  | { outcome: "valid"; payload: unknown }
  /** No signature: written by an app version before signing, or by anyone else. */
  | { outcome: "unsigned" }
  /** A signature that does not verify for this issue: edited, copied from another issue or repository, or another key. */
  | { outcome: "mismatching" };

/** Reads the last marker of `kind` and checks its signature for the issue in `seal`. */
export function readSignedMarker(body: string, kind: SignedKind, seal: MarkerSeal): MarkerReading {
  let last: Found | undefined;
  try {
    last = lastOf(body, kind);
  } catch {
    return { outcome: "mismatching" }; // longer than the app ever writes
  }
  if (!last) return { outcome: "absent" };
  if (last.signature === undefined) return { outcome: "unsigned" };
  if (!seal.key.verify(seal.scope, kind, last.encoded, last.signature)) return { outcome: "mismatching" };
  return { outcome: "valid", payload: decode(kind, last.encoded) };
}

/** True when `body` contains anything that looks like one of our markers (valid or not). */
export function hasMarker(body: string): boolean {
  return /<!--\s*escalation:/.test(body);
}
