import type { GateView } from "../../observe/gateView.js";

/** Open gates grouped by repository; groups ordered by their oldest gate, gates oldest first. */
export function groupByRepo(gates: GateView[]): Array<{ repo: string; gates: GateView[] }> {
  const groups = new Map<string, { repo: string; gates: GateView[] }>();
  for (const gate of gates) {
    const key = gate.repo.toLowerCase();
    if (!groups.has(key)) groups.set(key, { repo: gate.repo, gates: [] });
    groups.get(key)!.gates.push(gate);
  }
  return [...groups.values()];
}
