import { describe, expect, it } from "vitest";
import { ownersOf, parseCodeowners } from "../../../src/github/codeowners.js";

/** The owners of `path` under a file of one line `pattern @owner` (undefined: the line does not match). */
function owner(pattern: string, path: string): string | undefined {
  return ownersOf(parseCodeowners(`${pattern} @owner`, "CODEOWNERS"), path)?.users[0];
}

describe("CODEOWNERS patterns", () => {
  it("`*` owns every file", () => {
    for (const path of ["README.md", "src/a.ts", "a/b/c/d.txt"]) expect(owner("*", path)).toBe("owner");
  });

  it("`*.js` owns .js files at any depth, not others", () => {
    expect(owner("*.js", "index.js")).toBe("owner");
    expect(owner("*.js", "src/lib/a.js")).toBe("owner");
    expect(owner("*.js", "src/a.ts")).toBeUndefined();
    expect(owner("*.js", "src/a.json")).toBeUndefined();
  });

  it("`/docs/` is anchored at the root and owns everything below it", () => {
    expect(owner("/docs/", "docs/a.md")).toBe("owner");
    expect(owner("/docs/", "docs/deep/er/b.md")).toBe("owner");
    expect(owner("/docs/", "src/docs/a.md")).toBeUndefined();
    expect(owner("/docs/", "docs")).toBeUndefined(); // a file named docs is not the directory
    expect(owner("/docs/", "docs/")).toBe("owner"); // the directory itself
  });

  it("`docs/*` owns direct children only, as GitHub documents", () => {
    expect(owner("docs/*", "docs/getting-started.md")).toBe("owner");
    expect(owner("docs/*", "docs/build-app/troubleshooting.md")).toBeUndefined();
    expect(owner("docs/*", "src/docs/a.md")).toBeUndefined(); // a middle slash anchors it
  });

  it("`apps/` (no leading slash) owns an apps directory anywhere", () => {
    expect(owner("apps/", "apps/web/main.ts")).toBe("owner");
    expect(owner("apps/", "services/apps/x.ts")).toBe("owner");
    expect(owner("apps/", "apps.ts")).toBeUndefined();
  });

  it("`**/logs` owns a logs directory at any depth; `apps/**` everything inside apps", () => {
    expect(owner("**/logs", "logs/a.log")).toBe("owner");
    expect(owner("**/logs", "build/logs/a.log")).toBe("owner");
    expect(owner("**/logs", "a/b/logs/c/d.log")).toBe("owner");
    expect(owner("**/logs", "build/logsx/a.log")).toBeUndefined();
    expect(owner("apps/**", "apps/web/deep/main.ts")).toBe("owner");
    expect(owner("apps/**", "src/apps/main.ts")).toBeUndefined();
    expect(owner("a/**/b", "a/b")).toBe("owner");
    expect(owner("a/**/b", "a/x/y/b/c.txt")).toBe("owner");
  });

  it("`?` is one character but never `/`; regex characters in a pattern are literal", () => {
    expect(owner("file?.txt", "file1.txt")).toBe("owner");
    expect(owner("file?.txt", "file10.txt")).toBeUndefined();
    expect(owner("a+b.(c)", "x/a+b.(c)")).toBe("owner");
    expect(owner("a+b.(c)", "aab.(c)")).toBeUndefined();
  });

  it("a path given with ./ or / is read from the root", () => {
    expect(owner("/src/", "./src/a.ts")).toBe("owner");
    expect(owner("/src/", "/src/a.ts")).toBe("owner");
  });
});

describe("a CODEOWNERS file", () => {
  const file = parseCodeowners(
    [
      "# Default owners",
      "*            @Global-Owner @acme/Everyone   # trailing comment @ignored",
      "",
      "   ",
      "*.ts         @ts-owner",
      "/src/db/     @alice @acme/db-team docs@example.com",
      "!/src/db/generated/ @nobody",
      "/src/[ab]/   @nobody",
      "/src/db/vendor/",
    ].join("\n"),
    ".github/CODEOWNERS",
  );

  it("the last matching line wins, and owners are lower-cased users and teams (e-mails skipped)", () => {
    expect(ownersOf(file, "README.md")).toEqual({ users: ["global-owner"], teams: ["acme/everyone"] });
    expect(ownersOf(file, "src/api/x.ts")).toEqual({ users: ["ts-owner"], teams: [] });
    expect(ownersOf(file, "src/db/cache.ts")).toEqual({ users: ["alice"], teams: ["acme/db-team"] });
  });

  it("a line without owners matches and leaves the path unowned", () => {
    expect(ownersOf(file, "src/db/vendor/lib.ts")).toEqual({ users: [], teams: [] });
  });

  it("skips comments, blank lines, negation and character ranges, which GitHub does not support", () => {
    expect(file.rules.map((r) => r.pattern)).toEqual(["*", "*.ts", "/src/db/", "/src/db/vendor/"]);
    expect(ownersOf(file, "src/db/generated/x.ts")).toEqual({ users: ["alice"], teams: ["acme/db-team"] });
    expect(ownersOf(file, "src/a/x.ts")?.users).toEqual(["ts-owner"]);
  });

  it("no line matches: no owners known", () => {
    expect(ownersOf(parseCodeowners("/docs/ @doc\n", "CODEOWNERS"), "src/a.ts")).toBeUndefined();
    expect(ownersOf(parseCodeowners("# only comments\n\n", "CODEOWNERS"), "src/a.ts")).toBeUndefined();
  });
});
