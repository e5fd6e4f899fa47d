import { readFile, rename, writeFile } from "node:fs/promises";
import { z } from "zod";

/**
 * What an issue's workspace remembers between rounds (`state.json` beside the checkout): the round
 * that last ran in it and its branch, so work a crash left unpushed is pushed where it belongs, and
 * the round branch the last round's work went to when the branch had moved, for the next task.
 */
const WorkspaceStateSchema = z.object({
  round: z.number().int().min(0),
  branch: z.string().min(1),
  base: z.string().min(1),
  divertedTo: z.string().min(1).optional(),
});
export type WorkspaceState = z.infer<typeof WorkspaceStateSchema>;

/** The state, or undefined when there is none or it is unreadable (the checkout is then prepared afresh). */
export async function readWorkspaceState(file: string): Promise<WorkspaceState | undefined> {
  try {
    const parsed = WorkspaceStateSchema.safeParse(JSON.parse(await readFile(file, "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Written whole through a rename, so a crash leaves the old state or the new one. */
export async function writeWorkspaceState(file: string, state: WorkspaceState): Promise<void> {
  await writeFile(`${file}.tmp`, JSON.stringify(state), "utf8");
  await rename(`${file}.tmp`, file);
}
