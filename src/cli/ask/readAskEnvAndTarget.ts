import { EnvironmentError, invalidEnvironment } from "../usage.js";
import { CliEnv, type AskEnv } from "./askEnv.js";
import { askTarget, type AskTarget } from "./askTarget.js";

/**
 * The environment and the target it names, read together so that one EnvironmentError names every
 * variable to fix, the malformed and the missing alike: a client fixing only the first would fail again.
 */
export function readAskEnvAndTarget(env: NodeJS.ProcessEnv, flags: { repo?: string; issue?: string }, posting: boolean): { env: AskEnv; target: AskTarget } {
  const e = CliEnv.safeParse(env);
  if (e.success) return { env: e.data, target: askTarget(e.data, flags, posting) };
  const malformed = invalidEnvironment(e.error.issues);
  // Without the malformed values (all optional) the rest parses, and shows what is missing besides.
  const rest = CliEnv.parse(Object.fromEntries(Object.entries(env).filter(([name]) => !malformed.variables.includes(name))));
  try {
    askTarget(rest, flags, posting);
  } catch (error) {
    if (error instanceof EnvironmentError) throw new EnvironmentError(`${malformed.message}; ${error.message}`, [...malformed.variables, ...error.variables]);
    throw error;
  }
  throw malformed;
}
