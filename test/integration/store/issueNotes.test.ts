import { describe, expect, it } from "vitest";
import { storeRedis } from "../../support/storeRedis.js";
import { everything, ref, REPO, SECRET } from "./support.js";

const { redis, freshStore } = storeRedis();

describe("IssueNotes: notes", () => {
  it("keeps notes per issue in order", async () => {
    const store = freshStore();
    expect(await store.notes.notes(ref)).toEqual([]);
    const a = { by: "alice", at: 1, url: "u1", text: "Prefer small PRs.\n\nThanks 🙏", round: 0 };
    const b = { by: "bob", at: 2, url: "u2", text: "Use SQLite", round: 1 };
    await store.notes.addNote(ref, a);
    await store.notes.addNote({ repo: "octo/demo", issue: 7 }, b);
    expect(await store.notes.notes(ref)).toEqual([a, b]);
    expect(await store.notes.notes({ repo: REPO, issue: 8 })).toEqual([]);
  });
});

describe("IssueNotes.reviseNote", () => {
  it("replaces an edited note's text and withdraws a deleted one, dropping its audit hash", async () => {
    const store = freshStore();
    const ref = { repo: "acme/widgets", issue: 12 };
    const url = "https://github.com/acme/widgets/issues/12#issuecomment-900";
    await store.notes.addNote(ref, { by: "alice", at: 1_000, url, text: `token ${SECRET}`, round: 1, sha256: "a".repeat(64) });
    await store.notes.addNote(ref, { by: "bob", at: 2_000, url: `${url}1`, text: "keep the API", round: 1 });

    expect(await store.notes.reviseNote(ref, url, "token in the vault")).toBe(1);
    expect((await store.notes.notes(ref))[0]).toEqual({ by: "alice", at: 1_000, url, text: "token in the vault", round: 1 });
    expect(await store.notes.reviseNote(ref, url, "")).toBe(1);
    expect(await store.notes.notes(ref)).toEqual([
      { by: "alice", at: 1_000, url, text: "", round: 1, withdrawn: true },
      { by: "bob", at: 2_000, url: `${url}1`, text: "keep the API", round: 1 },
    ]);
    expect(await store.notes.reviseNote(ref, "https://github.com/acme/widgets/issues/12#issuecomment-1", "")).toBe(0);
    expect(await everything(redis(), store)).not.toContain(SECRET);
  });
});
