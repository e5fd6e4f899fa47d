import { describe, expect, it } from "vitest";
import { CodeownersLoader } from "../../../src/github/codeownersLoader.js";
import type { InstallationOctokit } from "../../../src/github/octokit.js";

/** GitHub's contents API for a repository holding `files`; other paths answer `missing` (404 or 403). */
function contentsApi(files: Record<string, string>, missing = 404) {
  const asked: string[] = [];
  const built = { count: 0 };
  const client = {
    request: async (route: string, params: { path: string; headers: { accept: string } }) => {
      expect(route).toBe("GET /repos/{owner}/{repo}/contents/{path}");
      expect(params.headers.accept).toBe("application/vnd.github.raw");
      asked.push(params.path);
      const text = files[params.path];
      if (text === undefined) throw Object.assign(new Error("Not Found"), { status: missing });
      return { data: text };
    },
  } as unknown as InstallationOctokit;
  const octokit = async () => {
    built.count++;
    return client;
  };
  return { octokit, asked, built };
}

describe("CodeownersLoader", () => {
  it("takes the first file where GitHub looks (.github/, the root, docs/) and caches it per repository", async () => {
    const { octokit, asked, built } = contentsApi({ CODEOWNERS: "* @root", "docs/CODEOWNERS": "* @docs" });
    const loader = new CodeownersLoader(60_000);
    const first = await loader.load(octokit, "acme/widgets");
    expect(first?.file).toBe("CODEOWNERS");
    expect(first?.rules.map((r) => r.users)).toEqual([["root"]]);
    expect(asked).toEqual([".github/CODEOWNERS", "CODEOWNERS"]);
    expect(await loader.load(octokit, "ACME/Widgets")).toBe(first);
    expect(asked).toHaveLength(2);
    expect(built.count).toBe(1); // a cache hit builds no installation Octokit
  });

  it("no file, or no permission to read one, is no CODEOWNERS (remembered too); other errors are thrown", async () => {
    const none = contentsApi({}, 403);
    const loader = new CodeownersLoader(60_000);
    expect(await loader.load(none.octokit, "acme/widgets")).toBeUndefined();
    expect(await loader.load(none.octokit, "acme/widgets")).toBeUndefined();
    expect(none.asked).toEqual([".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"]);
    await expect(new CodeownersLoader(60_000).load(contentsApi({}, 502).octokit, "acme/widgets")).rejects.toThrow("Not Found");
  });

  it("reads the file again once the cache has expired", async () => {
    const files: Record<string, string> = { ".github/CODEOWNERS": "* @before" };
    const { octokit } = contentsApi(files);
    const loader = new CodeownersLoader(0);
    expect((await loader.load(octokit, "acme/widgets"))?.rules[0]?.users).toEqual(["before"]);
    files[".github/CODEOWNERS"] = "* @after";
    expect((await loader.load(octokit, "acme/widgets"))?.rules[0]?.users).toEqual(["after"]);
  });
});
