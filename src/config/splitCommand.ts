import { ConfigError } from "../errors.js";

/**
 * Splits a command line into argv without a shell: whitespace separates words, single and double
 * quotes group them, a backslash escapes the next character. Nothing is expanded, so no variable,
 * glob or subshell in AGENT_COMMAND can run. A JSON array is accepted as-is.
 */
export function splitCommand(line: string, what = "AGENT_COMMAND"): string[] {
  const text = line.trim();
  if (text.startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(`${what} looks like a JSON array but does not parse: ${(error as Error).message}`, { cause: error });
    }
    if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((w) => typeof w === "string" && w.length > 0)) {
      throw new ConfigError(`${what} as JSON must be a non-empty array of non-empty strings (got ${text}).`);
    }
    return parsed as string[];
  }
  const words: string[] = [];
  let current = "";
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === "\\" && quote === '"' && i + 1 < text.length) current += text[++i];
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inWord = true;
    } else if (char === "\\" && i + 1 < text.length) {
      current += text[++i];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else {
      current += char;
      inWord = true;
    }
  }
  if (quote) throw new ConfigError(`${what} has an unterminated ${quote} quote: ${line}`);
  if (inWord) words.push(current);
  if (words.length === 0) throw new ConfigError(`${what} is empty; set it to the agent's command, e.g. "node agent.mjs {taskFile}".`);
  return words;
}

/** Fills {name} placeholders in each word; unknown placeholders are an error so typos surface at start-up. */
export function fillPlaceholders(argv: readonly string[], values: Readonly<Record<string, string>>, what = "AGENT_COMMAND"): string[] {
  return argv.map((word) =>
    word.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => {
      const value = values[name];
      if (value === undefined) {
        throw new ConfigError(
          `${what} uses the unknown placeholder ${whole}; the known ones are ${Object.keys(values)
            .map((k) => `{${k}}`)
            .join(", ")}.`,
        );
      }
      return value;
    }),
  );
}
