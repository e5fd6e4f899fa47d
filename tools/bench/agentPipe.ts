import { execFileSync } from "node:child_process";
import { constants, createWriteStream, mkdirSync, openSync } from "node:fs";
import { Socket } from "node:net";
import { join } from "node:path";

/** A FIFO the sandboxed trivial agent writes its line to, copied into the agent log. */
export interface AgentPipe {
  /** The directory holding only the FIFO: bound read-only into the sandbox (a FIFO is writable there). */
  dir: string;
  path: string;
  close(): void;
}

/**
 * The sandbox shows the agent no writable file of the benchmark's, but a FIFO on a read-only bind
 * still takes writes; lines under PIPE_BUF stay whole. Opened read-write so it never reads end-of-file.
 */
export function agentPipe(dir: string, logPath: string): AgentPipe {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "lines");
  execFileSync("mkfifo", ["-m", "0666", path]);
  // A non-blocking stream: a blocking read in the thread pool would keep the benchmark from exiting.
  const input = new Socket({ fd: openSync(path, constants.O_RDWR | constants.O_NONBLOCK), readable: true, writable: false });
  input.pipe(createWriteStream(logPath, { flags: "a" }));
  return { dir, path, close: () => input.destroy() };
}
