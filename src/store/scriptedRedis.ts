import type { Redis } from "ioredis";

/** A Lua script as ioredis defines it: `numberOfKeys` absent when the caller passes the count first. */
export interface LuaScript {
  numberOfKeys?: number;
  lua: string;
}

/**
 * Defines an aggregate's scripts as commands on the connection, once per connection (aggregates
 * share it), and returns the connection typed with them.
 */
export function withScripts<Commands>(redis: Redis, scripts: Record<keyof Commands & string, LuaScript>): Redis & Commands {
  const commands = redis as unknown as Record<string, unknown>;
  for (const [name, script] of Object.entries<LuaScript>(scripts)) {
    if (typeof commands[name] !== "function")
      redis.defineCommand(name, script.numberOfKeys === undefined ? { lua: script.lua } : { numberOfKeys: script.numberOfKeys, lua: script.lua });
  }
  return redis as Redis & Commands;
}

/** What a script command takes: keys, then arguments. */
export type ScriptArgs = (string | number)[];
