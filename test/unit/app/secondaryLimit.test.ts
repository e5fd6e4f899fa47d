import { describe, expect, it } from "vitest";
import { secondaryLimitHandler } from "../../../src/app/createServices.js";

describe("Probot's throttling on GitHub's secondary rate limit", () => {
  const handler = secondaryLimitHandler({ warn: () => undefined });

  it("never retries a write in place: the feedback worker pauses the installation instead", () => {
    for (const method of ["POST", "PATCH", "PUT", "DELETE"]) expect(handler(60, { method, url: "/repos/a/b/issues/1/labels" }, undefined, 0)).toBe(false);
  });

  it("retries a read twice, after the time GitHub asks", () => {
    expect([0, 1, 2].map((retryCount) => handler(60, { method: "GET", url: "/repos/a/b/issues" }, undefined, retryCount))).toEqual([true, true, false]);
  });
});
