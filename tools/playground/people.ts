import type { GitHubSimulator, Permission } from "../simulator/index.js";

/** Who a person can act as on the page; the simulator holds each to GitHub's permission rules. */
export interface Person {
  login: string;
  permission: Permission;
  /** As the page's picker shows it. */
  role: string;
}

export const PEOPLE: readonly Person[] = [
  { login: "maintainer", permission: "write", role: "maintainer, write access" },
  { login: "reader", permission: "read", role: "read-only collaborator" },
  { login: "outsider", permission: "none", role: "outsider, no access" },
];

export const LOGINS = PEOPLE.map((p) => p.login) as [string, ...string[]];

/** Adds the people the stack does not have yet (it brings the maintainer) with their access to `repo`. */
export function addPeople(sim: GitHubSimulator, repo: string, existing: readonly string[]): void {
  for (const person of PEOPLE) {
    if (!existing.includes(person.login)) sim.addUser(person.login);
    if (person.permission !== "none") sim.setPermission(repo, person.login, person.permission);
  }
}
