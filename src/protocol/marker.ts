import { ProtocolError } from "../errors.js";

/**
 * Hidden markers are HTML comments carrying base64url JSON: invisible on the rendered issue,
 * safe inside Markdown (base64url has no "--" or ">"), and unambiguous to find.
 * This module is the only place that knows the marker syntax.
 */
export type MarkerKind = "ask" | "status" | "ladder";

/** Asks stay small; the status state may use most of a comment (GitHub's limit is 65,536). */
export const MAX_MARKER_CHARS: Record<MarkerKind, number> = { ask: 16_384, status: 49_152, ladder: 512 };
const MARKER_PATTERN = /<!--\s*escalation:(ask|status|ladder):v1\s+([A-Za-z0-9_-]{1,49152})\s*-->/g;

export function renderMarker(kind: MarkerKind, payload: unknown): string {
  const encoded = Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
  if (encoded.length > MAX_MARKER_CHARS[kind]) {
    throw new ProtocolError(`The ${kind} marker would be ${encoded.length} characters; keep it under ${MAX_MARKER_CHARS[kind]} (shorten the questions or options).`);
  }
  return `<!-- escalation:${kind}:v1 ${encoded} -->`;
}

/**
 * Returns the decoded JSON of the last marker of `kind` in `body`, `undefined` when there is none,
 * and throws ProtocolError when a marker is present but is not valid JSON.
 */
export function findMarker(body: string, kind: MarkerKind): unknown {
  let last: string | undefined;
  for (const match of body.matchAll(MARKER_PATTERN)) {
    if (match[1] === kind) last = match[2];
  }
  if (last === undefined) return undefined;
  if (last.length > MAX_MARKER_CHARS[kind]) throw new ProtocolError(`The ${kind} marker is longer than ${MAX_MARKER_CHARS[kind]} characters.`);
  try {
    return JSON.parse(Buffer.from(last, "base64url").toString("utf8"));
  } catch (error) {
    throw new ProtocolError(`The ${kind} marker is not valid base64url JSON; it was probably edited by hand.`, { cause: error });
  }
}

/** True when `body` contains anything that looks like one of our markers (valid or not). */
export function hasMarker(body: string): boolean {
  return /<!--\s*escalation:/.test(body);
}
