/**
 * The one place that reads and writes git's receive-pack protocol (gitprotocol-pack, "Reference
 * Update Request" and "Report Status"): the ref updates at the head of a push's request body, and
 * the report that refuses them. Hand-written because no kept library exposes git's pkt-lines
 * (isomorphic-git keeps its own internal); it reads only the command list, never the pack.
 */

/** One ref a push updates; an all-zero `newId` deletes it. */
export interface RefUpdate {
  oldId: string;
  newId: string;
  ref: string;
}

export type PushRequest =
  | { kind: "commands"; updates: RefUpdate[]; capabilities: string[] }
  /** Not a push this filter can judge (a signed push, malformed lines): refused whole. */
  | { kind: "unreadable"; problem: string };

/** The command list is a few lines; a longer one is refused rather than buffered. */
export const MAX_COMMANDS_BYTES = 1024 * 1024;

const ZERO_ID = /^0+$/;
const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * Reads the command list at the start of `data`: `undefined` while its flush-pkt has not arrived,
 * else the updates and capabilities, with `consumed` the bytes up to and including the flush.
 */
export function readPushCommands(data: Buffer): (PushRequest & { consumed: number }) | undefined {
  const updates: RefUpdate[] = [];
  let capabilities: string[] = [];
  let at = 0;
  while (at + 4 <= data.length) {
    const length = Number.parseInt(data.subarray(at, at + 4).toString("latin1"), 16);
    if (!/^[0-9a-f]{4}$/.test(data.subarray(at, at + 4).toString("latin1")) || (length > 0 && length < 4)) {
      return { kind: "unreadable", problem: "the push's request is not in git's pkt-line format", consumed: at };
    }
    if (length === 0) return { kind: "commands", updates, capabilities, consumed: at + 4 };
    if (at + length > data.length) return undefined;
    let line = data.subarray(at + 4, at + length).toString("utf8");
    at += length;
    const nul = line.indexOf("\0");
    if (nul >= 0) {
      capabilities = line
        .slice(nul + 1)
        .trim()
        .split(" ")
        .filter(Boolean);
      line = line.slice(0, nul);
    }
    line = line.replace(/\n$/, "");
    if (line.startsWith("shallow ")) continue;
    if (line.startsWith("push-cert")) return { kind: "unreadable", problem: "signed pushes (git push --signed) are not taken through the app", consumed: at };
    const [oldId, newId, ref, ...rest] = line.split(" ");
    if (!oldId || !newId || !ref || rest.length > 0 || !OBJECT_ID.test(oldId) || !OBJECT_ID.test(newId)) {
      return { kind: "unreadable", problem: `the push's update "${line.slice(0, 200)}" is not one git sends`, consumed: at };
    }
    updates.push({ oldId, newId, ref });
  }
  return undefined;
}

/** Why each update is refused: every ref but `branch` is, and `branch`'s deletion; none when the push may go. */
export function refusedUpdates(updates: readonly RefUpdate[], branch: string): Map<string, string> {
  const own = `refs/heads/${branch}`;
  const refused = new Map<string, string>();
  for (const update of updates) {
    if (update.ref !== own) refused.set(update.ref, `the agent pushes only to its branch ${branch}`);
    else if (ZERO_ID.test(update.newId)) refused.set(update.ref, `the agent may not delete its branch ${branch}`);
  }
  // All or nothing: with one ref refused, the rest of the push does not go either.
  if (refused.size > 0) for (const update of updates) if (!refused.has(update.ref)) refused.set(update.ref, "refused with the rest of this push");
  return refused;
}

/** One pkt-line. */
function pkt(data: Buffer | string): Buffer {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data, "utf8");
  return Buffer.concat([Buffer.from((bytes.length + 4).toString(16).padStart(4, "0"), "latin1"), bytes]);
}

const FLUSH = Buffer.from("0000", "latin1");

/**
 * The receive-pack result that refuses `refused` (ref → why) as git shows it, "! [remote rejected]
 * main -> main (why)", with `message` on git's "remote:" lines: in side bands when the client asked
 * for them. Undefined when the client asked for no report (git has asked for one since 2005): the
 * caller answers with an HTTP error instead.
 */
export function refusalReport(refused: ReadonlyMap<string, string>, capabilities: readonly string[], message: string): Buffer | undefined {
  if (!capabilities.includes("report-status") && !capabilities.includes("report-status-v2")) return undefined;
  const report = Buffer.concat([pkt("unpack ok\n"), ...[...refused].map(([ref, why]) => pkt(`ng ${ref} ${why.replace(/\n/g, " ")}\n`)), FLUSH]);
  const band = capabilities.includes("side-band-64k") ? 65_515 : capabilities.includes("side-band") ? 995 : 0;
  if (band === 0) return report;
  const packets: Buffer[] = [];
  for (const line of message.split("\n")) packets.push(pkt(Buffer.concat([Buffer.from([2]), Buffer.from(`${line}\n`, "utf8")])));
  for (let at = 0; at < report.length; at += band) packets.push(pkt(Buffer.concat([Buffer.from([1]), report.subarray(at, at + band)])));
  return Buffer.concat([...packets, FLUSH]);
}
