import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, fstatSync, openSync } from "node:fs";
import type { Readable } from "node:stream";
import { z } from "zod";
import { SandboxError } from "../errors.js";
import { HOLDER_INFO_FD, HOLDER_READY_FD, holderScript } from "./bridgeScript.js";
import { holderArgs, type SandboxLayout } from "./bwrapArgs.js";
import type { EgressEndpoints } from "./egress/egressProxy.js";
import type { PendingRound } from "./pendingRound.js";

/**
 * A warm network namespace for one round: a holder (a small bwrap sandbox of its own) whose socat
 * bridges already listen on its loopback. Starting the bridges took most of a sandboxed round's
 * start-up; a spare started while no agent waits takes them off the path from a reply to the agent.
 * The round's own bwrap is started in it as soon as it is up (`prepare`), and waits there for its
 * round. Each is used by one round and then ended, so nothing one agent left in it meets the next.
 */
export interface WarmNetwork {
  /** The round's bwrap, already inside the namespace. */
  round: PendingRound;
  /** Ends the holder, an unused round and the descriptors: once the round's sandbox has exited. */
  release(): void;
}

/**
 * `file args…` run inside a warm namespace: nsenter enters it through the app's own descriptors of
 * it (/proc/<app>/fd/N), so the round's processes never hold one.
 */
export type EnterNetwork = (file: string, args: readonly string[]) => [file: string, args: string[]];

export interface NetworkSpares {
  /** The round's own warm namespace: a spare when one is up, else one started now. SandboxError when none can start. */
  take(): Promise<WarmNetwork>;
  /** Ends every holder, spare or in use. */
  close(): void;
}

export interface NetworkSparesOptions {
  bwrap: string;
  nsenter: string;
  layout: SandboxLayout;
  egress: EgressEndpoints;
  /** How many to keep warm: the rounds that can start at once (AGENT_CONCURRENCY). */
  spares: number;
  /** Starts a round's bwrap inside a namespace that is up. */
  prepare: (enter: EnterNetwork) => PendingRound;
  log: { warn(fields: Record<string, unknown>, message: string): void };
  /** Longest a holder may take to come up. */
  startMs?: number;
}

/** What bwrap's --info-fd says of the holder: its init's host pid and its network namespace's inode. */
const HolderInfo = z.object({ "child-pid": z.number().int().positive(), "net-namespace": z.number().int().positive() });

interface Holder {
  child: ChildProcess;
  ready: Promise<WarmNetwork>;
}

export function networkSpares(options: NetworkSparesOptions): NetworkSpares {
  const spares: Holder[] = [];
  const all = new Set<Holder>();
  let closed = false;

  const start = (): Holder => {
    const holder = startHolder(options, () => {
      all.delete(holder);
      const at = spares.indexOf(holder);
      if (at >= 0) spares.splice(at, 1);
    });
    all.add(holder);
    return holder;
  };
  const topUp = () => {
    while (!closed && spares.length < options.spares) {
      const holder = start();
      spares.push(holder);
      // A spare that cannot start is dropped; the round that would have taken it starts its own and reports why.
      holder.ready.catch((error: unknown) => {
        const at = spares.indexOf(holder);
        if (at >= 0) spares.splice(at, 1);
        if (!closed) options.log.warn({ err: (error as Error).message }, "a warm network namespace for the sandbox could not start");
      });
    }
  };
  topUp();

  return {
    async take() {
      if (closed) throw new SandboxError("The app is stopping: no new sandbox is started.");
      const holder = spares.shift() ?? start();
      const network = await holder.ready;
      return {
        ...network,
        release() {
          network.release();
          topUp();
        },
      };
    },
    close() {
      closed = true;
      // A spare's round never started: its bwrap, blocked in the namespace, ends with it.
      for (const holder of spares.splice(0))
        holder.ready.then(
          (network) => network.release(),
          () => undefined,
        );
      for (const holder of all) holder.child.stdin?.destroy();
    },
  };
}

/** Starts one holder; `gone` runs once it has exited. */
function startHolder(options: NetworkSparesOptions, gone: () => void): Holder {
  const { bwrap, layout, egress } = options;
  const args = [...holderArgs(layout, egress.dir), "--info-fd", String(HOLDER_INFO_FD), "--", "/bin/sh", "-c", holderScript(egress)];
  // Its own process group: a Ctrl-C to the app's group leaves the network of agents finishing their grace.
  // Its stdin is the pipe whose end stops it (bridgeScript.ts).
  const child = spawn(bwrap, args, { stdio: ["pipe", "ignore", "pipe", "pipe", "pipe"], detached: true, env: { PATH: "/usr/bin:/bin" } });
  child.stdin?.on("error", () => undefined);
  const holder: Holder = { child, ready: undefined as never };
  let said = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    said = (said + chunk.toString("utf8")).slice(-2000);
  });
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      gone();
      resolve();
    });
    child.once("error", (error) => {
      said ||= error.message;
      gone();
      resolve();
    });
  });
  const stop = () => child.stdin?.destroy();
  const fail = (why: string) => {
    stop();
    const words = said.trim().split("\n").slice(-2).join(" ") || why;
    return new SandboxError(`The sandbox's network namespace could not start: ${words}.`);
  };
  holder.ready = (async () => {
    const startMs = options.startMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), startMs)));
    try {
      const up = await Promise.race([
        Promise.all([infoOf(child.stdio[HOLDER_INFO_FD] as Readable), firstByte(child.stdio[HOLDER_READY_FD] as Readable)]),
        exited.then(() => "exited" as const),
        timeout,
      ]);
      if (up === "timeout") {
        child.kill("SIGKILL");
        throw fail(`it did not come up within ${startMs} ms`);
      }
      if (up === "exited" || !up[1] || up[0] === undefined) throw fail("it exited");
      return enter(options, up[0], stop);
    } finally {
      clearTimeout(timer);
    }
  })();
  return holder;
}

/**
 * Opens the holder's namespaces and checks, by inode, that they are the ones bwrap reported, so a
 * pid reused after the holder died can never hand a round another network (the host's).
 */
function enter({ nsenter, layout: { asRoot }, prepare }: NetworkSparesOptions, info: z.infer<typeof HolderInfo>, stop: () => void): WarmNetwork {
  const fds: number[] = [];
  try {
    fds.push(openSync(`/proc/${info["child-pid"]}/ns/net`, "r"));
    if (fstatSync(fds[0]!).ino !== info["net-namespace"]) throw new SandboxError("The sandbox's network namespace ended before a round could enter it.");
    // Unprivileged, its network belongs to its user namespace: nsenter enters that first.
    if (!asRoot) fds.push(openSync(`/proc/${info["child-pid"]}/ns/user`, "r"));
  } catch (error) {
    for (const fd of fds) closeSync(fd);
    stop();
    throw error instanceof SandboxError
      ? error
      : new SandboxError(`The sandbox's network namespace could not be entered: ${(error as Error).message}.`, { cause: error });
  }
  const [net, user] = fds.map((fd) => `/proc/${process.pid}/fd/${fd}`);
  const namespaces = asRoot ? [`--net=${net}`] : [`--user=${user}`, `--net=${net}`, "--preserve-credentials"];
  const round = prepare((file, args) => [nsenter, [...namespaces, "--", file, ...args]]);
  let released = false;
  return {
    round,
    release() {
      if (released) return;
      released = true;
      round.discard();
      stop();
      for (const fd of fds) closeSync(fd);
    },
  };
}

/** bwrap's info JSON, once written; undefined if the stream ends first. */
function infoOf(stream: Readable): Promise<z.infer<typeof HolderInfo> | undefined> {
  return new Promise((resolve) => {
    let text = "";
    const done = (value: z.infer<typeof HolderInfo> | undefined) => {
      stream.removeAllListeners("data");
      stream.resume();
      resolve(value);
    };
    stream.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      try {
        const parsed = HolderInfo.safeParse(JSON.parse(text));
        done(parsed.success ? parsed.data : undefined);
      } catch {
        // Not all of it yet.
      }
    });
    stream.once("end", () => done(undefined));
    stream.once("error", () => done(undefined));
  });
}

/** Whether a byte came before the stream ended. */
function firstByte(stream: Readable): Promise<boolean> {
  return new Promise((resolve) => {
    stream.once("data", () => resolve(true));
    stream.once("end", () => resolve(false));
    stream.once("error", () => resolve(false));
    stream.resume();
  });
}
