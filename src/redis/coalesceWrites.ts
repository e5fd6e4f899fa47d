import type { Redis } from "ioredis";

/**
 * Sends the commands a connection is given in one tick in one socket write. ioredis writes each
 * command as it is called, a system call each (and Redis woken for each); with many answers in
 * flight those writes were the app's largest single cost. Corking the socket at a tick's first write
 * and uncorking it on the next tick hands them to the kernel together (one `writev`), in the order
 * given; a command waits only for the microtasks already queued.
 */
export function coalesceWrites(redis: Redis): Redis {
  redis.on("connect", () => corkEachTick(redis.stream));
  return redis;
}

function corkEachTick(socket: Redis["stream"]): void {
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  socket.write = (...args: unknown[]) => {
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(uncork);
    }
    return write(...args);
  };
}
