import { describe, expect, it } from "vitest";
import { shortDuration } from "../../../../src/http/statusPage/shortDuration.js";

describe("shortDuration", () => {
  it.each<[number, string]>([
    [0, "0s"],
    [59.6, "1m"],
    [90, "1m 30s"],
    [3600 + 61, "1h 1m"],
    [2 * 86400 + 3 * 3600 + 59, "2d 3h"],
    [-300, "5m"],
  ])("%d s → %j (the two largest units)", (seconds, text) => {
    expect(shortDuration(seconds)).toBe(text);
  });
});
