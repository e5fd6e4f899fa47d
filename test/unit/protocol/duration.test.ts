import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/errors.js";
import { formatDuration, parseDuration } from "../../../src/protocol/duration.js";

describe("parseDuration", () => {
  it.each<[string, number]>([
    ["90", 90],
    ["  45  ", 45],
    ["90s", 90],
    ["30m", 1800],
    ["2h", 7200],
    ["1d", 86400],
    ["1w", 604800],
    ["1h30m", 5400],
    ["1h 30m", 5400],
    ["1 h 30 m", 5400],
    ["2H", 7200],
    ["1d2h3m4s", 86400 + 7200 + 180 + 4],
    ["0h5m", 300],
    ["120m", 7200],
  ])("parses %j as %i seconds", (text, seconds) => {
    expect(parseDuration(text, "--timeout")).toBe(seconds);
  });

  it.each<[string]>([
    [""],
    ["   "],
    ["0"],
    ["0s"],
    ["0h0m"],
    ["-5"],
    ["-5m"],
    ["1.5h"],
    ["soon"],
    ["5x"],
    ["h"],
    ["1h and 30m"],
    ["30 minutes"],
    ["m30"],
    ["1h30"],
  ])("rejects %j with a ConfigError naming the flag and the value", (text) => {
    let caught: unknown;
    try {
      parseDuration(text, "--timeout");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const message = (caught as Error).message;
    expect(message).toMatch(/^--timeout must be a positive duration/);
    expect(message).toContain(JSON.stringify(text));
  });

  it("names whichever variable it is given", () => {
    expect(() => parseDuration("later", "AGENT_TIMEOUT")).toThrow(/^AGENT_TIMEOUT must be/);
  });
});

describe("formatDuration", () => {
  it.each<[number, string]>([
    [0, "0s"],
    [-10, "0s"],
    [1, "1s"],
    [45, "45s"],
    [59.6, "1m"],
    [60, "1m"],
    [90, "1m 30s"],
    [3600, "1h"],
    [5400, "1h 30m"],
    [86400, "1d"],
    [90061, "1d 1h 1m 1s"],
    [604800, "7d"],
    [86400 + 60, "1d 1m"],
  ])("formats %d seconds as %j", (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });

  it("round-trips through parseDuration for every positive whole number of seconds", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 366 * 86400 }), (seconds) => parseDuration(formatDuration(seconds), "x") === seconds),
      { numRuns: 300 },
    );
  });
});
