import { readFileSync } from "node:fs";

/** Where the app's CPU time went, from a `node --cpu-prof` profile: self time by function and by area. */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  byArea: Array<{ area: string; ms: number; share: number }>;
  byFunction: Array<{ name: string; ms: number; share: number }>;
}

function areaOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith("node:")) return `node:${url.slice(5).split("/")[0]}`;
  const own = /\/dist\/(.+)$/.exec(url);
  if (own) return `app: ${own[1]!.split("/").slice(0, 2).join("/")}`;
  return url;
}

export function summarizeProfile(file: string, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  for (const [id, ms] of self) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === "(idle)") continue;
    total += ms;
    const area = areaOf(frame.url, frame.functionName);
    areas.set(area, (areas.get(area) ?? 0) + ms);
    const where = frame.url ? `${frame.url.replace(/^.*\/(node_modules|dist)\//, "$1/")}:${frame.lineNumber + 1}` : "";
    const name = `${frame.functionName || "(anonymous)"} ${where}`.trim();
    functions.set(name, (functions.get(name) ?? 0) + ms);
  }
  const rank = (map: Map<string, number>) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  return {
    file,
    totalMs: total,
    byArea: rank(areas).map(([area, ms]) => ({ area, ms, share: ms / total })),
    byFunction: rank(functions).map(([name, ms]) => ({ name, ms, share: ms / total })),
  };
}
