/**
 * A repository's CODEOWNERS file, read as GitHub reads it: gitignore-style patterns, each followed by
 * owners (`@user`, `@org/team`; e-mail addresses cannot be mapped to logins and are skipped), the
 * last matching line winning. What GitHub does not support is skipped, as GitHub skips it: negation
 * (`!`), character ranges (`[ ]`).
 */

/** Where GitHub looks for the file, in its order: the first that exists is used. */
export const CODEOWNERS_PATHS = [".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"] as const;

export interface Owners {
  users: string[];
  /** org/team-slug */
  teams: string[];
}

interface Rule extends Owners {
  pattern: string;
  regex: RegExp;
}

export interface Codeowners {
  /** Where the file was found (one of CODEOWNERS_PATHS). */
  file: string;
  rules: Rule[];
}

const USER = /^@([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))$/;
const TEAM = /^@([A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+)$/;

export function parseCodeowners(text: string, file: string): Codeowners {
  const rules: Rule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const tokens = raw.trim().split(/\s+/).filter(Boolean);
    // A token starting with # begins a comment, at the start of the line or after the owners.
    const end = tokens.findIndex((t) => t.startsWith("#"));
    const [pattern, ...owners] = end >= 0 ? tokens.slice(0, end) : tokens;
    if (!pattern || pattern.startsWith("!") || pattern.includes("[")) continue;
    rules.push({
      pattern,
      regex: patternRegex(pattern),
      users: owners.flatMap((o) => USER.exec(o)?.[1]?.toLowerCase() ?? []),
      teams: owners.flatMap((o) => TEAM.exec(o)?.[1]?.toLowerCase() ?? []),
    });
  }
  return { file, rules };
}

/**
 * The owners of one path (relative to the repository's root; a trailing `/` names a directory):
 * those of the last line whose pattern matches, which may list nobody. Undefined when no line matches.
 */
export function ownersOf(codeowners: Codeowners, path: string): Owners | undefined {
  const normalized = path.replace(/^(?:\.\/|\/)+/, "");
  for (let i = codeowners.rules.length - 1; i >= 0; i--) {
    const rule = codeowners.rules[i]!;
    if (rule.regex.test(normalized)) return { users: rule.users, teams: rule.teams };
  }
  return undefined;
}

const escapeRegex = (text: string) => text.replace(/[.+^${}()|\\]/g, "\\$&");

/** One path segment: `*` is any run of characters but `/`, `?` any one of them. */
function segmentRegex(segment: string): string {
  return escapeRegex(segment).replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]");
}

/**
 * gitignore's rules as GitHub applies them to CODEOWNERS: a pattern with a `/` at its start or in
 * its middle is anchored at the root, otherwise it matches at any depth; a trailing `/` matches
 * only a directory (so everything below it); `**` spans directories; a pattern matching a
 * directory owns everything below it, except `dir/*`, which GitHub limits to direct children.
 */
export function patternRegex(pattern: string): RegExp {
  const directoryOnly = pattern.endsWith("/");
  const trimmed = pattern.replace(/^\/+|\/+$/g, "");
  const anchored = pattern.startsWith("/") || trimmed.includes("/");
  const segments = trimmed.split("/");
  let source = anchored ? "^" : "^(?:.*/)?";
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === "**") source += last ? ".*" : "(?:[^/]+/)*";
    else source += segmentRegex(segment) + (last ? "" : "/");
  });
  if (segments.at(-1) === "**") return new RegExp(`${source}$`);
  if (segments.length > 1 && segments.at(-1) === "*") return new RegExp(`${source}$`);
  return new RegExp(`${source}${directoryOnly ? "/.*" : "(?:/.*)?"}$`);
}
