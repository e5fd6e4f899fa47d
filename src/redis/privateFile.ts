import { rmSync, writeFileSync } from "node:fs";

/** Writes `text` to a file only its owner can read, never briefly readable by others (a stale file is replaced, not reused). */
export function writePrivateFile(path: string, text: string): void {
  rmSync(path, { force: true });
  writeFileSync(path, text, { mode: 0o600, flag: "wx" });
}
