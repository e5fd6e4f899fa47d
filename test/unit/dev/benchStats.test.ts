import { describe, expect, it } from "vitest";
import { isContentWrite, keyKind } from "../../../tools/bench/scenarios/apiCalls.js";
import { poissonSchedule } from "../../../tools/bench/scenarios/replyToSpawn.js";
import { distribution, median, percentile, spread } from "../../../tools/bench/stats.js";
import { fmt, markdownTable } from "../../../tools/bench/table.js";

describe("bench statistics", () => {
  it("takes nearest-rank percentiles", () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile(sorted, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it("summarises a sample, ignoring non-finite values", () => {
    expect(distribution([5, 1, Number.NaN, 3])).toMatchObject({ n: 3, min: 1, p50: 3, max: 5, mean: 3 });
  });

  it("reports the median of runs and their spread", () => {
    expect(median([3, 1, 2, 10])).toBe(2.5);
    expect(spread([4, 2, 9])).toMatchObject({ median: 4, min: 2, max: 9 });
  });

  it("draws a Poisson schedule at the requested rate", () => {
    let seed = 1;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const times = poissonSchedule(5000, 10, random);
    expect(times.every((t, i) => i === 0 || t >= times[i - 1]!)).toBe(true);
    expect(5000 / (times.at(-1)! / 1000)).toBeGreaterThan(9);
    expect(5000 / (times.at(-1)! / 1000)).toBeLessThan(11);
  });
});

describe("bench tables", () => {
  it("pads columns and right-aligns numbers", () => {
    const table = markdownTable(
      ["Name", "ms"],
      [
        ["a", "1"],
        ["long name", "1,234"],
      ],
      ["l", "r"],
    );
    expect(table.split("\n")).toEqual(["| Name      |    ms |", "| --------- | ----: |", "| a         |     1 |", "| long name | 1,234 |"]);
  });

  it("formats with a precision that suits the size", () => {
    expect(fmt(1234.5, "ms")).toBe("1,235 ms");
    expect(fmt(42.25)).toBe("42.3");
    expect(fmt(3)).toBe("3");
    expect(fmt(0.1234)).toBe("0.123");
    expect(fmt(Number.NaN)).toBe("n/a");
  });
});

describe("bench classification", () => {
  it("counts writes to comments, reactions and labels as content-creating, not token requests or reads", () => {
    expect(isContentWrite({ method: "POST", route: "POST /repos/{owner}/{repo}/issues/{issue_number}/comments" })).toBe(true);
    expect(isContentWrite({ method: "PATCH", route: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}" })).toBe(true);
    expect(isContentWrite({ method: "DELETE", route: "DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}" })).toBe(true);
    expect(isContentWrite({ method: "POST", route: "POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions" })).toBe(true);
    expect(isContentWrite({ method: "POST", route: "POST /app/installations/{installation_id}/access_tokens" })).toBe(false);
    expect(isContentWrite({ method: "GET", route: "GET /repos/{owner}/{repo}/issues/{issue_number}/comments" })).toBe(false);
  });

  it("names the kind of each Redis key", () => {
    expect(keyKind("p", "p:gate:123")).toBe("gate hash");
    expect(keyKind("p", "p:gates:open")).toBe("open-gates index");
    expect(keyKind("p", "p:issue:acme/x#4")).toBe("issue hash");
    expect(keyKind("p", "p:issue:acme/x#4:status")).toBe("issue status");
    expect(keyKind("p", "p:timeouts:de:timeout-abc-1")).toBe("bullmq timeouts: deduplication keys (24 h)");
    expect(keyKind("p", "p:timeouts:events")).toBe("bullmq timeouts: indexes and event stream");
    expect(keyKind("p", "p:spawn:resume-abc")).toBe("bullmq spawn: job records");
    expect(keyKind("p", "p:owed:key:acme/x#4-line-1")).toBe("feedback lanes: entry ids (24 h)");
    expect(keyKind("p", "p:owed:lanes")).toBe("feedback lanes: lanes");
    expect(keyKind("p", "p:feedback:de:acme/x#4")).toBe("bullmq feedback: deduplication keys (24 h)");
    expect(keyKind("p", "p:inbound:de:abc")).toBe("bullmq inbound: deduplication keys (24 h)");
    expect(keyKind("p", "p:inbound:delivery-abc")).toBe("bullmq inbound: job records");
    expect(keyKind("p", "p:timeouts:timeout-42-1")).toBe("bullmq timeouts: job records");
  });
});
