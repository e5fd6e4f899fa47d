import type { Redis } from "ioredis";
import { keyIn } from "../redis/prefix.js";
import { waitOnWake } from "./workerParts.js";
import { withScripts, type ScriptArgs } from "../store/scriptedRedis.js";
import type { CountedState } from "./inboundStream.js";
import { ADD_JOB, COMPLETE_JOB, COUNT_JOBS, EXTEND_LOCKS, FAIL_JOB, RETRY_JOB, TAKE_JOB } from "./spawnScripts.js";

/** A job id queued again within this long (a redelivered answer, a retried step) is refused. */
const DEDUPLICATE_MS = 24 * 3600 * 1000;
/** Failed jobs are kept a week, for an operator to read. */
const FAILED_KEPT_MS = 7 * 24 * 3600 * 1000;

/** A spawn job as its worker takes it. */
export interface SpawnTask {
  id: string;
  /** The job's data as queued (JSON): parsed where it is run. */
  data: string;
  /** The most times it may fail before it fails for good. */
  attempts: number;
  /** Times it failed so far (a round put back at a shutdown is no failure). */
  attemptsMade: number;
  /** Times a worker took it, this one included: above 1, an earlier run may have got some way. */
  attemptsStarted: number;
  /** When it was queued (ms, the queuer's clock). */
  createdAt: number;
  /** The lock this worker holds it under. */
  token: string;
}

/** What a take found: a job, or none waiting; whether more wait, and when the next delayed one is due; the jobs it found stalled. */
export type TakenSpawn = ({ kind: "job"; task: SpawnTask } | { kind: "idle" }) & {
  /** Other jobs wait: take again without waiting for a wake. */
  more: boolean;
  /** When none wait: ms until the next delayed job (a retry, a round put back) is due, if any. */
  dueInMs: number | undefined;
  /** Jobs whose worker stopped renewing their lock, put back at the head; `failed` when they stalled too often. */
  stalled: { id: string; failed: boolean }[];
};

/** Where a job id stands: queued (waiting, running or due later), ended with an outcome (a line) or failed, or not known. */
export type SpawnState = { kind: "queued" } | { kind: "ended"; outcome: string } | { kind: "failed" } | { kind: "unknown" };

interface SpawnCommands {
  escAddJob(...args: ScriptArgs): Promise<number>;
  escTakeJob(...args: ScriptArgs): Promise<string[]>;
  escExtendLocks(...args: ScriptArgs): Promise<string[]>;
  escCompleteJob(...args: ScriptArgs): Promise<number>;
  escRetryJob(...args: ScriptArgs): Promise<number>;
  escFailJob(...args: ScriptArgs): Promise<number>;
  escCountJobs(...args: ScriptArgs): Promise<[number, number, number, number]>;
}

/**
 * The spawn jobs (a round for each answer and dispatch): a queue in Redis, a few commands per job
 * where a BullMQ job took about sixty (tools/bench/README.md). It keeps what the round needs of
 * BullMQ: a job id queued once within 24 h; a lock per running job, renewed while its agent runs,
 * whose loss stops the agent and whose expiry (a dead worker) puts the job back; retries with
 * backoff; a failed stream kept a week. The one place that knows its key layout: each job (a hash,
 * deleted once it ends), each job id's key (24 h; the outcome once it ended), the waiting list, the
 * delayed and active sets (by due time and lock expiry), the failed stream and the wake set.
 */
export class SpawnQueue {
  /** The name the health check and the metrics give it, as they name the queues. */
  readonly name = "spawn";
  readonly #redis: Redis & SpawnCommands;

  constructor(
    redis: Redis,
    readonly prefix: string,
  ) {
    this.#redis = withScripts<SpawnCommands>(redis, {
      escAddJob: { numberOfKeys: 4, lua: ADD_JOB },
      escTakeJob: { numberOfKeys: 5, lua: TAKE_JOB },
      escExtendLocks: { numberOfKeys: 1, lua: EXTEND_LOCKS },
      escCompleteJob: { numberOfKeys: 3, lua: COMPLETE_JOB },
      escRetryJob: { numberOfKeys: 4, lua: RETRY_JOB },
      escFailJob: { numberOfKeys: 4, lua: FAIL_JOB },
      escCountJobs: { numberOfKeys: 4, lua: COUNT_JOBS },
    });
  }

  /** Hash: a job's data, attempts, failures, starts, stalls, creation time and lock token. */
  jobKey(id: string): string {
    return `${this.jobPrefix()}${id}`;
  }
  /** String with TTL: the job id was queued (`queued`), ended (its outcome) or failed. */
  idKey(id: string): string {
    return `${this.idPrefix()}${id}`;
  }
  /** List: job ids ready to run, in order. */
  waitingKey(): string {
    return keyIn(this.prefix, "spawns:waiting");
  }
  /** Sorted set: job ids due later (a retry, a round put back), by due time. */
  delayedKey(): string {
    return keyIn(this.prefix, "spawns:delayed");
  }
  /** Sorted set: running job ids, by when their lock runs out. */
  activeKey(): string {
    return keyIn(this.prefix, "spawns:active");
  }
  /** Stream: the jobs that failed for good, with their data and last error. */
  failedKey(): string {
    return keyIn(this.prefix, "spawns:failed");
  }
  /** Sorted set of one member: something was queued or put off (a waiting worker looks again; src/jobs/workerParts.ts). */
  wakeKey(): string {
    return keyIn(this.prefix, "spawns:wakeAt");
  }
  private jobPrefix(): string {
    return keyIn(this.prefix, "spawns:job:");
  }
  private idPrefix(): string {
    return keyIn(this.prefix, "spawns:id:");
  }

  /** Queues a job (`data` as JSON); false when the same id was queued within 24 h. */
  async add(id: string, data: unknown, attempts: number): Promise<boolean> {
    const keys = [this.idKey(id), this.jobKey(id), this.waitingKey(), this.wakeKey()];
    return (await this.#redis.escAddJob(...keys, DEDUPLICATE_MS, id, JSON.stringify(data), attempts, Date.now())) === 1;
  }

  /**
   * Takes the first ready job under `token`, its lock running out after `lockMs` unless extended;
   * with `lookForStalled`, first puts back the jobs whose lock ran out (failed after `mostStalls`).
   */
  async take(token: string, lockMs: number, options: { mostStalls: number; lookForStalled: boolean }): Promise<TakenSpawn> {
    const reply = await this.#redis.escTakeJob(
      this.waitingKey(),
      this.delayedKey(),
      this.activeKey(),
      this.failedKey(),
      this.wakeKey(),
      lockMs,
      token,
      this.jobPrefix(),
      options.mostStalls,
      Date.now() - FAILED_KEPT_MS,
      this.idPrefix(),
      options.lookForStalled ? 1 : 0,
    );
    const [kind, id = "", more, dueIn] = reply;
    const count = Number(reply[4]);
    const stalled = reply.slice(5, 5 + count).map((s) => (s.startsWith("failed:") ? { id: s.slice(7), failed: true } : { id: s, failed: false }));
    const common = { more: more === "1", dueInMs: dueIn ? Number(dueIn) : undefined, stalled };
    if (kind === "idle") return { kind: "idle", ...common };
    const fields: Record<string, string> = {};
    for (let i = 5 + count; i + 1 < reply.length; i += 2) fields[reply[i]!] = reply[i + 1]!;
    return {
      kind: "job",
      ...common,
      task: {
        id,
        data: fields.data ?? "",
        attempts: Number(fields.attempts ?? 1),
        attemptsMade: Number(fields.made ?? 0),
        // As recorded before this take, which counts too.
        attemptsStarted: Number(fields.started ?? 0) + 1,
        createdAt: Number(fields.createdAt ?? 0),
        token,
      },
    };
  }

  /** Waits up to `ms` on `blocking` (a connection of its own) for a job to be queued or put off. */
  async waitForWork(blocking: Redis, ms: number): Promise<void> {
    await waitOnWake(blocking, this.wakeKey(), ms);
  }

  /** Extends the locks of `tasks` by `lockMs`; the ids of those whose lock is lost. */
  async extendLocks(tasks: readonly Pick<SpawnTask, "id" | "token">[], lockMs: number): Promise<string[]> {
    if (tasks.length === 0) return [];
    return this.#redis.escExtendLocks(this.activeKey(), lockMs, this.jobPrefix(), ...tasks.flatMap((t) => [t.id, t.token]));
  }

  /** The job ran to its end with `outcome` (a line an operator reads); false when its lock was lost. */
  async complete(task: SpawnTask, outcome: string): Promise<boolean> {
    return (await this.#redis.escCompleteJob(this.jobKey(task.id), this.activeKey(), this.idKey(task.id), task.id, task.token, outcome)) === 1;
  }

  /** The job runs again in `delayMs`: a failure (`failed`, which uses an attempt) or a round put back. False when its lock was lost. */
  async retry(task: SpawnTask, delayMs: number, failed: boolean): Promise<boolean> {
    const keys = [this.jobKey(task.id), this.activeKey(), this.delayedKey(), this.wakeKey()];
    return (await this.#redis.escRetryJob(...keys, task.id, task.token, Math.max(0, delayMs), failed ? 1 : 0)) === 1;
  }

  /** The job failed for good: moved to the failed stream with `error`. False when its lock was lost. */
  async fail(task: SpawnTask, error: string): Promise<boolean> {
    const keys = [this.jobKey(task.id), this.activeKey(), this.failedKey(), this.idKey(task.id)];
    return (await this.#redis.escFailJob(...keys, task.id, task.token, Date.now() - FAILED_KEPT_MS, "error", error, "failedAt", Date.now())) === 1;
  }

  /** Where job `id` stands. */
  async state(id: string): Promise<SpawnState> {
    const [queued, mark] = await Promise.all([this.#redis.exists(this.jobKey(id)), this.#redis.get(this.idKey(id))]);
    if (queued === 1) return { kind: "queued" };
    if (mark === null) return { kind: "unknown" };
    if (mark === "failed") return { kind: "failed" };
    return { kind: "ended", outcome: mark };
  }

  /** Jobs waiting, running or due later: 0 when no round is owed. */
  async unfinished(): Promise<number> {
    const { waiting = 0, active = 0, delayed = 0 } = await this.getJobCounts("waiting", "active", "delayed");
    return waiting + active + delayed;
  }

  /** The counts the health check and the metrics read of every queue. */
  async getJobCounts(...states: CountedState[]): Promise<Partial<Record<CountedState, number>>> {
    const [waiting, active, delayed, failed] = await this.#redis.escCountJobs(this.waitingKey(), this.activeKey(), this.delayedKey(), this.failedKey());
    const all: Record<CountedState, number> = { waiting, active, delayed, failed };
    return Object.fromEntries(states.map((state) => [state, all[state]]));
  }
}
