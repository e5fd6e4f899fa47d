import { describe, expect, it } from "vitest";
import { parseBytes } from "../../../src/config/byteSize.js";

describe("parseBytes: WORKSPACE_MAX_BYTES", () => {
  it.each<[string, number]>([
    ["500000", 500_000],
    ["200K", 200 * 1024],
    ["100M", 100 * 1024 ** 2],
    ["2G", 2 * 1024 ** 3],
    [" 3 mib ", 3 * 1024 ** 2],
    ["1kb", 1024],
  ])("%j is %d bytes", (text, bytes) => {
    expect(parseBytes(text)).toBe(bytes);
  });

  it.each<[string]>([["lots"], [""], ["1T"], ["-1M"], ["1.5G"]])("%j is no size", (text) => {
    expect(parseBytes(text)).toBeUndefined();
  });
});
