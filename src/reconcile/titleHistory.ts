import { z } from "zod";
import type { TitleEdit } from "../domain.js";
import type { InstallationOctokit } from "../github/octokit.js";

/** A `renamed` entry of the issue's events (GET /repos/{owner}/{repo}/issues/{n}/events): who changed the title, from what to what. */
const Renamed = z.object({
  event: z.literal("renamed"),
  actor: z.object({ login: z.string(), type: z.string().optional() }).nullable().optional(),
  rename: z.object({ from: z.string(), to: z.string() }),
  created_at: z.string(),
});

interface Actor {
  login: string;
  type: string;
}

/**
 * Whose title the issue shows, from its events, for a rebuild that has no record of the live edits
 * (src/gates/issueTitle.ts): null when a person gave it or it never changed; else the bot that changed
 * it last and the last title a person gave it (the one the issue was opened with, when no person
 * changed it since).
 */
export function titleEditOf(events: readonly unknown[], isBot: (actor: Actor) => boolean): TitleEdit | null {
  const renames = events
    .flatMap((e) => {
      const parsed = Renamed.safeParse(e);
      return parsed.success ? [parsed.data] : [];
    })
    .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
  const byBot = (r: (typeof renames)[number]) => r.actor !== null && r.actor !== undefined && isBot({ login: r.actor.login, type: r.actor.type ?? "User" });
  const last = renames.at(-1);
  if (!last || !byBot(last)) return null;
  const lastPersons = renames.findLast((r) => !byBot(r));
  return { editor: last.actor!.login, personsTitle: lastPersons ? lastPersons.rename.to : renames[0]!.rename.from };
}

/** The issue's events read (one request a hundred) for its title's history. */
export async function readTitleEdit(octokit: InstallationOctokit, repo: string, issue: number, isBot: (actor: Actor) => boolean): Promise<TitleEdit | null> {
  const [owner, name] = repo.split("/") as [string, string];
  const events = await octokit.paginate("GET /repos/{owner}/{repo}/issues/{issue_number}/events", { owner, repo: name, issue_number: issue, per_page: 100 });
  return titleEditOf(events, isBot);
}
