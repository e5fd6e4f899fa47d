import type { Redis } from "ioredis";
import type { Gate, Vote } from "../domain.js";
import { withGateScripts, type GateCommands } from "./gateCommands.js";
import { toGate, toVotes, pairs } from "./gateHash.js";
import { GateKeys } from "./gateKeys.js";
import type { IssueKeyRef } from "./issueKey.js";
import { OPEN_REPOS_BUILT } from "./gateScripts.js";

/**
 * Reading the gate records: a gate, its votes and reminder-ladder steps, an issue's gates, the open
 * gates and the repositories they are in. GateRecords (gateRecords.ts) extends it with the
 * transitions that write them; split so the atomic transitions are read apart from the reads.
 * No read here changes a gate: the one write, the open-repositories index built at its first read,
 * derives what the open gates already say.
 */
export class GateReads {
  readonly keys: GateKeys;
  protected readonly redis: Redis & GateCommands;

  constructor(redis: Redis, prefix: string) {
    this.keys = new GateKeys(prefix);
    this.redis = withGateScripts(redis);
  }

  async getGate(gateId: string): Promise<Gate | undefined> {
    const h = await this.redis.hgetall(this.keys.gate(gateId));
    return h.id ? toGate(h) : undefined;
  }

  /** The votes recorded on an approval gate so far, oldest first. */
  async votes(gateId: string): Promise<Vote[]> {
    return toVotes(await this.redis.hvals(this.keys.gateVotes(gateId)));
  }

  /** Whether the gate's reminder-ladder step was already posted on the issue. */
  async ladderStepPosted(gateId: string, step: number): Promise<boolean> {
    return (await this.redis.sismember(this.keys.gateLadder(gateId), step)) === 1;
  }

  /**
   * The repositories (as written, by installation) where a gate is open: what a periodic
   * reconciliation always reads. One HGETALL of their index; the first read where it was never
   * built (a Redis written before it existed, or wiped) builds it from the open gates, once.
   */
  async openGateRepos(): Promise<Map<number, Set<string>>> {
    const read = await this.redis.hgetall(this.keys.openGateRepos());
    const index =
      OPEN_REPOS_BUILT in read ? read : pairs(await this.redis.escIndexOpenRepos(this.keys.openGateRepos(), this.keys.openGates(), this.keys.gatePrefix()));
    const out = new Map<number, Set<string>>();
    for (const field of Object.keys(index)) {
      const at = field.indexOf(":");
      if (field === OPEN_REPOS_BUILT || at < 0) continue;
      const installationId = Number(field.slice(0, at));
      out.set(installationId, (out.get(installationId) ?? new Set<string>()).add(field.slice(at + 1)));
    }
    return out;
  }

  /** The issue's most recent gate, whatever its state. */
  async lastGate(ref: IssueKeyRef): Promise<Gate | undefined> {
    const h = pairs(await this.redis.escLastGate(this.keys.issueGates(ref), this.keys.gatePrefix()));
    return h.id ? toGate(h) : undefined;
  }

  /** The id of the issue's most recent gate: one command, where its record is not needed. */
  async lastGateId(ref: IssueKeyRef): Promise<string | undefined> {
    return (await this.redis.lindex(this.keys.issueGates(ref), -1)) ?? undefined;
  }

  /** Every gate of the issue in ask order: the history a spawn task folds in. */
  async issueGates(ref: IssueKeyRef): Promise<Gate[]> {
    const ids = await this.redis.lrange(this.keys.issueGates(ref), 0, -1);
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.gate(id));
    const rows = (await pipeline.exec()) ?? [];
    return rows
      .map(([, h]) => h as Record<string, string>)
      .filter((h) => h.id)
      .map(toGate);
  }

  /** Open gates, oldest first. */
  async openGates(limit = 1000): Promise<Gate[]> {
    const ids = await this.redis.zrange(this.keys.openGates(), 0, limit - 1);
    const gates = await Promise.all(ids.map((id) => this.getGate(id)));
    return gates.filter((g): g is Gate => g !== undefined);
  }
}
