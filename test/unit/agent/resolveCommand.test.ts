import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveCommand } from "../../../src/agent/resolveCommand.js";
import { AgentError } from "../../../src/errors.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "escalation-resolve-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function file(path: string, mode: number): string {
  const full = join(root, path);
  mkdirSync(join(full, ".."), { recursive: true });
  writeFileSync(full, "#!/bin/sh\n");
  chmodSync(full, mode);
  return full;
}

const tool = file("bin/tool", 0o755);
file("first/tool", 0o644); // earlier in PATH but not executable: skipped, as execvp does
const plain = file("work/plain.sh", 0o644);
mkdirSync(join(root, "dir/tool"), { recursive: true }); // a directory is never the command

describe("resolveCommand", () => {
  it("looks a bare name up in PATH, past directories and files that are not executable", () => {
    expect(resolveCommand("tool", root, [join(root, "dir"), join(root, "first"), join(root, "bin")].join(":"))).toBe(tool);
  });

  it("takes a name with a slash as a path from the working directory", () => {
    expect(resolveCommand("./bin/tool", root, "")).toBe(tool);
    expect(resolveCommand(tool, "/", undefined)).toBe(tool);
  });

  it("uses /usr/bin:/bin when PATH is unset", () => {
    expect(resolveCommand("sh", root, undefined)).toMatch(/^\/(usr\/)?bin\/sh$/);
  });

  it("a missing command is an AgentError naming it and AGENT_COMMAND", () => {
    const error = (() => {
      try {
        resolveCommand("no-such-agent", root, join(root, "bin"));
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(AgentError);
    expect((error as Error).message).toBe("Could not start the agent (no-such-agent): spawn no-such-agent ENOENT. Check AGENT_COMMAND.");
  });

  it("a file that is there but not executable says so", () => {
    expect(() => resolveCommand("work/plain.sh", root, undefined)).toThrow(
      `Could not start the agent (work/plain.sh): ${plain} is not executable (EACCES). Check AGENT_COMMAND.`,
    );
  });
});
