import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Every file under `dir`, hidden ones and `.git` included: where a leaked secret could be. */
export function allFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}
