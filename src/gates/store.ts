import type { Redis } from "ioredis";
import { AskSchema, type Ask } from "../protocol/ask.js";
import { Keys, type IssueKeyRef } from "./keys.js";
import { ALLOCATE_ROUND, CANCEL_GATE, CLAIM_RESUME, OPEN_GATE, RECORD_ANSWER } from "./scripts.js";
import type { Gate, GateState, IssueRecord, RecordedAnswer } from "./types.js";

export type RecordResult =
  | { outcome: "recorded" }
  | { outcome: "same"; state: GateState }
  | { outcome: "taken"; state: GateState; answeredBy: string }
  | { outcome: "missing" };

export interface NewGate {
  id: string;
  repo: string;
  issue: number;
  installationId: number;
  round: number;
  ask: Ask;
  askedAt: number;
  askedBy: string;
  askUrl: string;
}

type ScriptedRedis = Redis & {
  escOpenGate(...args: (string | number)[]): Promise<[string, string]>;
  escRecordAnswer(...args: (string | number)[]): Promise<string[]>;
  escClaimResume(...args: (string | number)[]): Promise<string>;
  escCancelGate(...args: (string | number)[]): Promise<number>;
  escAllocateRound(...args: (string | number)[]): Promise<number>;
};

/** Gate and issue records in Redis, and their atomic transitions. The only writer of those keys. */
export class GateStore {
  readonly keys: Keys;
  readonly #redis: ScriptedRedis;

  constructor(redis: Redis, prefix: string) {
    this.keys = new Keys(prefix);
    const scripted = redis as ScriptedRedis;
    if (typeof scripted.escOpenGate !== "function") {
      redis.defineCommand("escOpenGate", { numberOfKeys: 4, lua: OPEN_GATE });
      redis.defineCommand("escRecordAnswer", { numberOfKeys: 3, lua: RECORD_ANSWER });
      redis.defineCommand("escClaimResume", { numberOfKeys: 1, lua: CLAIM_RESUME });
      redis.defineCommand("escCancelGate", { numberOfKeys: 3, lua: CANCEL_GATE });
      redis.defineCommand("escAllocateRound", { numberOfKeys: 2, lua: ALLOCATE_ROUND });
    }
    this.#redis = scripted;
  }

  /** Remembers the issue's installation, title and body so a spawn needs no GitHub read. */
  async upsertIssue(record: Omit<IssueRecord, "nextRound" | "openGate" | "statusCommentId">): Promise<void> {
    await this.#redis.hset(this.keys.issue(record), {
      repo: record.repo,
      issue: record.issue,
      installationId: record.installationId,
      title: record.title,
      body: record.body,
      url: record.url,
    });
  }

  async getIssue(ref: IssueKeyRef): Promise<IssueRecord | undefined> {
    const h = await this.#redis.hgetall(this.keys.issue(ref));
    if (!h.repo) return undefined;
    return {
      repo: h.repo,
      issue: Number(h.issue),
      installationId: Number(h.installationId),
      title: h.title ?? "",
      body: h.body ?? "",
      url: h.url ?? "",
      openGate: h.openGate || undefined,
      nextRound: Number(h.nextRound ?? 0),
      statusCommentId: h.statusCommentId ? Number(h.statusCommentId) : undefined,
    };
  }

  async setStatusCommentId(ref: IssueKeyRef, commentId: number): Promise<void> {
    await this.#redis.hset(this.keys.issue(ref), "statusCommentId", commentId);
  }

  /** The round the issue's agent is in now (the last one allocated), or 0 before any spawn. */
  async currentRound(ref: IssueKeyRef): Promise<number> {
    const next = await this.#redis.hget(this.keys.issue(ref), "nextRound");
    return Math.max(0, Number(next ?? 0) - 1);
  }

  /** Opens a gate once per ask comment; a still-open older gate on the issue is superseded. */
  async openGate(gate: NewGate): Promise<{ opened: boolean; superseded?: string }> {
    const ref = { repo: gate.repo, issue: gate.issue };
    const fields: Record<string, string> = {
      id: gate.id,
      repo: gate.repo,
      issue: String(gate.issue),
      installationId: String(gate.installationId),
      round: String(gate.round),
      ask: JSON.stringify(gate.ask),
      askedAt: String(gate.askedAt),
      askedBy: gate.askedBy,
      askUrl: gate.askUrl,
      answers: "[]",
    };
    const [outcome, superseded] = await this.#redis.escOpenGate(
      this.keys.gate(gate.id),
      this.keys.openGates(),
      this.keys.issue(ref),
      this.keys.issueGates(ref),
      gate.id,
      gate.askedAt,
      ...Object.entries(fields).flat(),
    );
    return { opened: outcome === "opened", superseded: superseded || undefined };
  }

  async getGate(gateId: string): Promise<Gate | undefined> {
    const h = await this.#redis.hgetall(this.keys.gate(gateId));
    return h.id ? toGate(h) : undefined;
  }

  /** Records the answer if the gate is still open. Idempotent for the same answering comment. */
  async recordAnswer(gate: Gate, answers: RecordedAnswer[], by: string, commentId: number, at: number): Promise<RecordResult> {
    const result = await this.#redis.escRecordAnswer(
      this.keys.gate(gate.id),
      this.keys.openGates(),
      this.keys.issue(gate),
      gate.id,
      JSON.stringify(answers),
      by,
      at,
      commentId,
    );
    const [outcome, state, answeredBy] = result;
    if (outcome === "recorded") return { outcome };
    if (outcome === "same") return { outcome, state: state as GateState };
    if (outcome === "taken") return { outcome, state: state as GateState, answeredBy: answeredBy ?? "" };
    return { outcome: "missing" };
  }

  /** A spawn job takes the answered gate; false when another job already did. */
  async claimResume(gateId: string, jobId: string): Promise<boolean> {
    return (await this.#redis.escClaimResume(this.keys.gate(gateId), jobId, Date.now())) === "claimed";
  }

  async markResumed(gateId: string, at: number): Promise<void> {
    await this.#redis.hset(this.keys.gate(gateId), { state: "resumed", resumedAt: at });
  }

  async cancelGate(gate: Pick<Gate, "id" | "repo" | "issue">, reason: string): Promise<boolean> {
    return (await this.#redis.escCancelGate(this.keys.gate(gate.id), this.keys.openGates(), this.keys.issue(gate), gate.id, reason)) === 1;
  }

  /** The round number of a spawn job, the same on every retry of that job. */
  async allocateRound(ref: IssueKeyRef, jobId: string): Promise<number> {
    return Number(await this.#redis.escAllocateRound(this.keys.issueSpawns(ref), this.keys.issue(ref), jobId));
  }

  /** The issue's most recent gate, whatever its state. */
  async lastGate(ref: IssueKeyRef): Promise<Gate | undefined> {
    const id = await this.#redis.lindex(this.keys.issueGates(ref), -1);
    return id ? this.getGate(id) : undefined;
  }

  /** Every gate of the issue in ask order: the history a spawn task folds in. */
  async issueGates(ref: IssueKeyRef): Promise<Gate[]> {
    const ids = await this.#redis.lrange(this.keys.issueGates(ref), 0, -1);
    if (ids.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.gate(id));
    const rows = (await pipeline.exec()) ?? [];
    return rows.map(([, h]) => h as Record<string, string>).filter((h) => h.id).map(toGate);
  }

  /** Open gates, oldest first. */
  async openGates(limit = 1000): Promise<Gate[]> {
    const ids = await this.#redis.zrange(this.keys.openGates(), 0, limit - 1);
    const gates = await Promise.all(ids.map((id) => this.getGate(id)));
    return gates.filter((g): g is Gate => g !== undefined);
  }

  /** Appends a line to the status comment's log; returns its sequence number (1-based). */
  async appendStatusLine(ref: IssueKeyRef, line: string): Promise<number> {
    return this.#redis.rpush(this.keys.issueStatusLog(ref), line);
  }

  async statusLines(ref: IssueKeyRef): Promise<string[]> {
    return this.#redis.lrange(this.keys.issueStatusLog(ref), 0, -1);
  }

  /** How many status lines the status comment on GitHub shows; newer jobs skip when it is ahead. */
  async statusRendered(ref: IssueKeyRef): Promise<number> {
    return Number((await this.#redis.hget(this.keys.issue(ref), "statusRendered")) ?? 0);
  }

  async setStatusRendered(ref: IssueKeyRef, count: number): Promise<void> {
    await this.#redis.hset(this.keys.issue(ref), "statusRendered", count);
  }

  async cachedPermission(repo: string, login: string): Promise<string | null> {
    return this.#redis.get(this.keys.permission(repo, login));
  }

  async cachePermission(repo: string, login: string, permission: string, ttlSeconds: number): Promise<void> {
    await this.#redis.set(this.keys.permission(repo, login), permission, "EX", ttlSeconds);
  }
}

function toGate(h: Record<string, string>): Gate {
  return {
    id: h.id!,
    repo: h.repo!,
    issue: Number(h.issue),
    installationId: Number(h.installationId),
    round: Number(h.round),
    ask: AskSchema.parse(JSON.parse(h.ask!)),
    askedAt: Number(h.askedAt),
    askedBy: h.askedBy ?? "",
    askUrl: h.askUrl ?? "",
    state: h.state as GateState,
    answers: JSON.parse(h.answers ?? "[]") as RecordedAnswer[],
    answeredBy: h.answeredBy,
    answeredAt: h.answeredAt ? Number(h.answeredAt) : undefined,
    answerCommentId: h.answerCommentId ? Number(h.answerCommentId) : undefined,
    resumedAt: h.resumedAt ? Number(h.resumedAt) : undefined,
    closedReason: h.closedReason,
  };
}
