import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../../../src/config/projectRoot.js";

/**
 * The Node lines package.json's `engines` admits, the ones CI runs (the machine's Node runs the
 * suite; scripts/other-nodes.sh runs NODE_MAJORS) and the Dockerfile's must not drift apart: a line
 * the project claims is tested, CI tests no line it does not claim, and the image runs a tested one.
 */
const read = (name: string) => readFileSync(join(projectRoot, name), "utf8");

interface Line {
  op: "^" | ">=";
  major: number;
}

/** `engines.node` as lines: `^20.19.0` is Node 20 from 20.19.0 on, `>=24.0.0` is 24 and every later one. */
function engineLines(range: string): Line[] {
  return range.split("||").map((part) => {
    const match = /^(\^|>=)(\d+)\.\d+\.\d+$/.exec(part.trim());
    expect(match, `engines.node: read "${part.trim()}" as ^X.Y.Z or >=X.Y.Z`).not.toBeNull();
    return { op: match![1] as Line["op"], major: Number(match![2]) };
  });
}

const admits = (lines: Line[], major: number) => lines.some((l) => (l.op === "^" ? l.major === major : major >= l.major));

describe("Node lines", () => {
  const lines = engineLines((JSON.parse(read("package.json")) as { engines: { node: string } }).engines.node);
  const ciMajors = /^NODE_MAJORS=\(([\d ]+)\)$/m.exec(read("scripts/other-nodes.sh"))?.[1]?.split(" ").map(Number) ?? [];
  const dockerMajors = [...read("Dockerfile").matchAll(/^FROM node:(\d+)-/gm)].map((m) => Number(m[1]));

  it("CI runs every line engines names besides the oldest (the machine's Node runs that one), and no line engines refuses", () => {
    expect(ciMajors.length).toBeGreaterThan(0);
    const oldest = Math.min(...lines.map((l) => l.major));
    for (const line of lines.filter((l) => l.major !== oldest)) expect(ciMajors, `Node ${line.major}`).toContain(line.major);
    for (const major of ciMajors) expect(admits(lines, major), `engines admits Node ${major}`).toBe(true);
  });

  it("ends engines with an open line starting at the newest Node CI runs", () => {
    expect(lines.at(-1)).toEqual({ op: ">=", major: Math.max(...ciMajors) });
  });

  it("builds the image on the newest Node CI runs", () => {
    expect(dockerMajors.length).toBeGreaterThan(0);
    for (const major of dockerMajors) expect(major).toBe(Math.max(...ciMajors));
  });
});
