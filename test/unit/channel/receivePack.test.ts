import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPushCommands, refusalReport, refusedUpdates, type RefUpdate } from "../../../src/channel/receivePack.js";
import { ISOLATED_GIT_ENV } from "../../support/gitServer.js";

/** One pkt-line as git writes it: four hex digits of length (the four included), then the payload. */
const pkt = (payload: string | Buffer): Buffer => {
  const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(payload, "utf8");
  return Buffer.concat([Buffer.from((bytes.length + 4).toString(16).padStart(4, "0"), "latin1"), bytes]);
};
const FLUSH = Buffer.from("0000", "latin1");
const CAPS = "report-status side-band-64k agent=git/2.39";

const ZERO = "0".repeat(40);
const OLD = "a".repeat(40);
const NEW = "b".repeat(40);
const OTHER = "c".repeat(40);

/** A push's command list as `git push` sends it: the first command carries the capabilities after a NUL. */
const commands = (lines: string[], caps = CAPS): Buffer =>
  Buffer.concat([...lines.map((line, index) => pkt(index === 0 ? `${line}\0${caps}\n` : `${line}\n`)), FLUSH]);

/** Reads pkt-lines back: `null` for a flush-pkt. Throws on anything else than whole pkt-lines. */
function decodePkts(data: Buffer): Array<Buffer | null> {
  const out: Array<Buffer | null> = [];
  let at = 0;
  while (at < data.length) {
    const head = data.subarray(at, at + 4).toString("latin1");
    if (!/^[0-9a-f]{4}$/.test(head)) throw new Error(`bad pkt-line length ${JSON.stringify(head)} at ${at}`);
    const length = Number.parseInt(head, 16);
    if (length === 0) {
      out.push(null);
      at += 4;
      continue;
    }
    if (length < 4 || at + length > data.length) throw new Error(`bad pkt-line length ${length} at ${at}`);
    out.push(data.subarray(at + 4, at + length));
    at += length;
  }
  return out;
}

/** Splits a side-band stream (ending in a flush) into its bands, and the pkt-line sizes seen. */
function decodeSideBand(data: Buffer): { band1: Buffer; band2: string; sizes: number[]; endsInFlush: boolean } {
  const pkts = decodePkts(data);
  const band1: Buffer[] = [];
  let band2 = "";
  const sizes: number[] = [];
  pkts.forEach((p, index) => {
    if (p === null) {
      if (index !== pkts.length - 1) throw new Error("flush before the end of the side-band stream");
      return;
    }
    sizes.push(p.length + 4);
    if (p[0] === 1) band1.push(p.subarray(1));
    else if (p[0] === 2) band2 += p.subarray(1).toString("utf8");
    else throw new Error(`unexpected band ${p[0]}`);
  });
  return { band1: Buffer.concat(band1), band2, sizes, endsInFlush: pkts.at(-1) === null };
}

const text = (pkts: Array<Buffer | null>) => pkts.map((p) => (p === null ? null : p.toString("utf8")));

describe("readPushCommands, on the command list git sends at the head of a receive-pack request", () => {
  it("reads a single update of the own branch, its capabilities, and consumes up to the flush only (not the pack)", () => {
    const head = commands([`${OLD} ${NEW} refs/heads/escalation/issue-7`]);
    const request = Buffer.concat([head, Buffer.from("PACK\0\0\0\x02garbage", "latin1")]);
    const read = readPushCommands(request);
    expect(read).toEqual({
      kind: "commands",
      updates: [{ oldId: OLD, newId: NEW, ref: "refs/heads/escalation/issue-7" }],
      capabilities: ["report-status", "side-band-64k", "agent=git/2.39"],
      consumed: head.length,
    });
    expect(refusedUpdates(read!.kind === "commands" ? read!.updates : [], "escalation/issue-7").size).toBe(0);
  });

  it("reads several updates, capabilities from the first line only", () => {
    const read = readPushCommands(commands([`${OLD} ${NEW} refs/heads/escalation/issue-7`, `${ZERO} ${OTHER} refs/tags/v1`]));
    expect(read).toMatchObject({
      kind: "commands",
      updates: [
        { oldId: OLD, newId: NEW, ref: "refs/heads/escalation/issue-7" },
        { oldId: ZERO, newId: OTHER, ref: "refs/tags/v1" },
      ],
      capabilities: ["report-status", "side-band-64k", "agent=git/2.39"],
    });
  });

  it("is undefined while the flush-pkt has not arrived, then reads the whole list once it has", () => {
    const full = commands([`${OLD} ${NEW} refs/heads/escalation/issue-7`, `${ZERO} ${OTHER} refs/tags/v1`]);
    const firstLine = pkt(`${OLD} ${NEW} refs/heads/escalation/issue-7\0${CAPS}\n`).length;
    // Nothing, a partial length, a partial line, whole lines without the flush, and half the flush.
    for (const cut of [0, 2, 10, firstLine, firstLine + 30, full.length - 4, full.length - 2]) {
      expect(readPushCommands(full.subarray(0, cut)), `cut at ${cut}`).toBeUndefined();
    }
    // As a caller does it: the first chunk, then the first chunk with the rest appended.
    const first = full.subarray(0, firstLine + 30);
    expect(readPushCommands(first)).toBeUndefined();
    const read = readPushCommands(Buffer.concat([first, full.subarray(firstLine + 30)]));
    expect(read).toMatchObject({ kind: "commands", consumed: full.length });
    expect(read?.kind === "commands" && read.updates.map((u) => u.ref)).toEqual(["refs/heads/escalation/issue-7", "refs/tags/v1"]);
  });

  it("reads a bare flush (git's probe before a large push) as a push of nothing", () => {
    expect(readPushCommands(FLUSH)).toEqual({ kind: "commands", updates: [], capabilities: [], consumed: 4 });
  });

  it("skips the shallow lines a push from a shallow clone starts with", () => {
    const request = Buffer.concat([pkt(`shallow ${OTHER}\n`), pkt(`shallow ${"d".repeat(40)}\n`), commands([`${OLD} ${NEW} refs/heads/escalation/issue-7`])]);
    expect(readPushCommands(request)).toEqual({
      kind: "commands",
      updates: [{ oldId: OLD, newId: NEW, ref: "refs/heads/escalation/issue-7" }],
      capabilities: ["report-status", "side-band-64k", "agent=git/2.39"],
      consumed: request.length,
    });
  });

  it("accepts sha256 object ids (64 hex digits)", () => {
    const old256 = "1".repeat(64);
    const new256 = "2f".repeat(32);
    const read = readPushCommands(commands([`${old256} ${new256} refs/heads/escalation/issue-7`], `${CAPS} object-format=sha256`));
    expect(read).toMatchObject({ kind: "commands", updates: [{ oldId: old256, newId: new256, ref: "refs/heads/escalation/issue-7" }] });
    expect(read?.kind === "commands" && read.capabilities).toContain("object-format=sha256");
  });

  it("a signed push (push-cert) is unreadable, saying signed pushes are not taken", () => {
    const request = Buffer.concat([pkt(`push-cert\0${CAPS}\n`), pkt("certificate version 0.1\n"), pkt("push-cert-end\n"), FLUSH]);
    const read = readPushCommands(request);
    expect(read).toMatchObject({ kind: "unreadable", problem: expect.stringMatching(/signed push/) });
  });

  it.each([
    ["a length that is not hex", Buffer.from("zzzzhello", "latin1")],
    ["a length below four that is not a flush", Buffer.from("0003", "latin1")],
    ["a delim-pkt (0001), which receive-pack never takes", Buffer.concat([Buffer.from("0001", "latin1"), FLUSH])],
  ])("garbage is unreadable (%s), not waited for", (_name, request) => {
    expect(readPushCommands(request)).toMatchObject({ kind: "unreadable", problem: expect.stringContaining("pkt-line") });
  });

  it.each([
    ["a short object id", `${"a".repeat(39)} ${NEW} refs/heads/x`],
    ["an id of 50 digits", `${"a".repeat(50)} ${NEW} refs/heads/x`],
    ["uppercase hex", `${"A".repeat(40)} ${NEW} refs/heads/x`],
    ["a missing ref", `${OLD} ${NEW}`],
    ["an extra field", `${OLD} ${NEW} refs/heads/x extra`],
  ])("a command line git never sends is unreadable (%s), quoting it", (_name, line) => {
    const read = readPushCommands(commands([line]));
    expect(read).toMatchObject({ kind: "unreadable", problem: expect.stringContaining(line) });
  });
});

describe("refusedUpdates", () => {
  const own = "escalation/issue-7";
  const update = (ref: string, newId = NEW, oldId = OLD): RefUpdate => ({ oldId, newId, ref });

  it("lets an update (or the creation) of the own branch go", () => {
    expect(refusedUpdates([update(`refs/heads/${own}`)], own)).toEqual(new Map());
    expect(refusedUpdates([update(`refs/heads/${own}`, NEW, ZERO)], own)).toEqual(new Map());
  });

  it("refuses a push to main, naming the branch the agent may push to", () => {
    const refused = refusedUpdates([update("refs/heads/main")], own);
    expect([...refused.keys()]).toEqual(["refs/heads/main"]);
    expect(refused.get("refs/heads/main")).toContain(own);
  });

  it("refuses the deletion of the own branch (an all-zero new id)", () => {
    const refused = refusedUpdates([update(`refs/heads/${own}`, ZERO)], own);
    expect(refused.get(`refs/heads/${own}`)).toMatch(/delete/);
    expect(refused.get(`refs/heads/${own}`)).toContain(own);
    // sha256's all-zero id as well.
    expect(refusedUpdates([update(`refs/heads/${own}`, "0".repeat(64), "1".repeat(64))], own).size).toBe(1);
  });

  it("refuses a whole multi-ref push when one ref is not the own branch: the own one with the rest", () => {
    const refused = refusedUpdates([update(`refs/heads/${own}`), update("refs/tags/v1", OTHER, ZERO)], own);
    expect(refused.size).toBe(2);
    expect(refused.get("refs/tags/v1")).toContain(own);
    expect(refused.get(`refs/heads/${own}`)).toBe("refused with the rest of this push");
  });

  it("does not take a branch that merely ends or starts like the own one", () => {
    const refused = refusedUpdates([update(`refs/heads/x/${own}`), update(`refs/heads/${own}-2`), update(`refs/tags/${own}`)], own);
    expect(refused.size).toBe(3);
  });
});

describe("refusalReport, decoded as git decodes it", () => {
  const refused = new Map([["refs/heads/main", "the agent pushes only to its branch escalation/issue-7"]]);

  it("with side-band-64k: band 1 carries 'unpack ok', the ng line and a flush; band 2 the message; then a flush", () => {
    const report = refusalReport(refused, ["report-status", "side-band-64k", "agent=git/2.39"], "escalation: refused\nsee the issue");
    expect(report).toBeInstanceOf(Buffer);
    const { band1, band2, endsInFlush } = decodeSideBand(report!);
    expect(endsInFlush).toBe(true);
    expect(text(decodePkts(band1))).toEqual(["unpack ok\n", "ng refs/heads/main the agent pushes only to its branch escalation/issue-7\n", null]);
    expect(band2).toBe("escalation: refused\nsee the issue\n");
  });

  it("with report-status-v2 alone it still reports (git 2.29+ asks for v2 when offered)", () => {
    const report = refusalReport(refused, ["report-status-v2"], "ignored");
    expect(text(decodePkts(report!))).toEqual(["unpack ok\n", "ng refs/heads/main the agent pushes only to its branch escalation/issue-7\n", null]);
  });

  it("with report-status but no side band: plain pkt-lines, the message left out", () => {
    const report = refusalReport(refused, ["report-status", "agent=git/2.39"], "escalation: refused");
    expect(text(decodePkts(report!))).toEqual(["unpack ok\n", "ng refs/heads/main the agent pushes only to its branch escalation/issue-7\n", null]);
    expect(report!.toString("utf8")).not.toContain("escalation: refused");
  });

  it("lists every refused ref, a reason's newlines flattened so it stays one line", () => {
    const two = new Map([
      ["refs/heads/escalation/issue-7", "refused with the rest of this push"],
      ["refs/tags/v1", "first\nsecond"],
    ]);
    const report = refusalReport(two, ["report-status"], "x");
    expect(text(decodePkts(report!))).toEqual([
      "unpack ok\n",
      "ng refs/heads/escalation/issue-7 refused with the rest of this push\n",
      "ng refs/tags/v1 first second\n",
      null,
    ]);
  });

  it("with the old side-band (1000-byte packets) splits a long report, every pkt-line within 1000 bytes", () => {
    const many = new Map(Array.from({ length: 60 }, (_, i) => [`refs/heads/branch-${i}`, "the agent pushes only to its branch escalation/issue-7"] as const));
    const report = refusalReport(many, ["report-status", "side-band"], "escalation: refused");
    const { band1, band2, sizes } = decodeSideBand(report!);
    expect(sizes.every((size) => size <= 1000)).toBe(true);
    expect(sizes.filter((size) => size === 1000).length).toBeGreaterThan(1);
    const lines = text(decodePkts(band1));
    expect(lines).toHaveLength(62);
    expect(lines[0]).toBe("unpack ok\n");
    expect(lines[60]).toBe("ng refs/heads/branch-59 the agent pushes only to its branch escalation/issue-7\n");
    expect(lines[61]).toBeNull();
    expect(band2).toBe("escalation: refused\n");
  });

  it("is undefined when the client asked for no report-status", () => {
    expect(refusalReport(refused, ["side-band-64k", "agent=git/2.39"], "escalation: refused")).toBeUndefined();
    expect(refusalReport(refused, [], "escalation: refused")).toBeUndefined();
  });
});

describe("a real `git push` to a receive-pack endpoint that refuses with refusalReport", () => {
  const BRANCH = "escalation/issue-7";
  const MESSAGE = "escalation: refused";
  let dir: string;
  let bare: string;
  let work: string;
  let server: Server;
  let port: number;
  const seen: Array<{ updates: RefUpdate[]; capabilities: string[] }> = [];

  const gitEnv = ISOLATED_GIT_ENV;
  const git = (args: string[], cwd?: string) =>
    execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd, env: gitEnv, encoding: "utf8" });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "receive-pack-"));
    bare = join(dir, "repo.git");
    work = join(dir, "work");
    git(["init", "--bare", "-q", "-b", "main", bare]);
    git(["init", "-q", "-b", "main", work]);
    git(["commit", "-q", "--allow-empty", "-m", "first"], work);

    server = createServer((request, response) => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      if (request.method === "GET" && url.pathname === "/repo.git/info/refs" && url.searchParams.get("service") === "git-receive-pack") {
        execFile("git", ["receive-pack", "--stateless-rpc", "--advertise-refs", bare], { env: gitEnv, encoding: "buffer" }, (error, stdout) => {
          if (error) {
            response.writeHead(500).end(error.message);
            return;
          }
          response.writeHead(200, { "content-type": "application/x-git-receive-pack-advertisement", "cache-control": "no-cache" });
          response.end(Buffer.concat([pkt("# service=git-receive-pack\n"), FLUSH, stdout]));
        });
        return;
      }
      if (request.method === "POST" && url.pathname === "/repo.git/git-receive-pack") {
        const chunks: Buffer[] = [];
        request.on("data", (chunk: Buffer) => chunks.push(chunk));
        request.on("end", () => {
          const read = readPushCommands(Buffer.concat(chunks));
          if (read?.kind !== "commands") {
            response.writeHead(400).end(read?.kind === "unreadable" ? read.problem : "incomplete");
            return;
          }
          seen.push({ updates: read.updates, capabilities: read.capabilities });
          const report = refusalReport(refusedUpdates(read.updates, BRANCH), read.capabilities, MESSAGE);
          if (!report) {
            response.writeHead(403).end("no report-status");
            return;
          }
          response.writeHead(200, { "content-type": "application/x-git-receive-pack-result", "cache-control": "no-cache" });
          response.end(report);
        });
        return;
      }
      response.writeHead(404).end("not found");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Async: the server runs in this process and must answer while git waits. */
  const push = (...refspecs: string[]) =>
    promisify(execFile)("git", ["push", `http://127.0.0.1:${port}/repo.git`, ...refspecs], { cwd: work, env: gitEnv }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code ?? -1, stderr: error.stderr ?? "" }),
    );

  it("git fails the push, showing [remote rejected] with the reason and the message on a remote: line", async () => {
    const result = await push("HEAD:refs/heads/main");
    expect(result.code).not.toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.updates).toEqual([{ oldId: ZERO, newId: git(["rev-parse", "HEAD"], work).trim(), ref: "refs/heads/main" }]);
    expect(seen[0]!.capabilities.some((c) => c.startsWith("report-status"))).toBe(true);
    expect(result.stderr).toContain("[remote rejected]");
    expect(result.stderr).toContain("(the agent pushes only to its branch escalation/issue-7)");
    expect(result.stderr).toContain(`remote: ${MESSAGE}`);
    // Nothing reached the bare repository.
    expect(git(["for-each-ref"], bare).trim()).toBe("");
  });

  it("git shows both refs of a mixed push rejected, the own branch 'with the rest of this push'", async () => {
    const result = await push(`HEAD:refs/heads/${BRANCH}`, "HEAD:refs/tags/v1");
    expect(result.code).not.toBe(0);
    expect(
      seen
        .at(-1)!
        .updates.map((u) => u.ref)
        .sort(),
    ).toEqual([`refs/heads/${BRANCH}`, "refs/tags/v1"]);
    expect(result.stderr).toMatch(/\[remote rejected\] +HEAD -> escalation\/issue-7 \(refused with the rest of this push\)/);
    expect(result.stderr).toMatch(/\[remote rejected\] +HEAD -> v1 \(the agent pushes only to its branch escalation\/issue-7\)/);
  });
});
