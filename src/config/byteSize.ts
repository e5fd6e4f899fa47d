/** Bytes of a size: plain bytes, or with K, M or G (powers of 1024). */
export function parseBytes(text: string): number | undefined {
  const match = /^(\d+)\s*([KMG]?)i?B?$/i.exec(text.trim());
  if (!match) return undefined;
  const power = { "": 0, K: 1, M: 2, G: 3 }[match[2]!.toUpperCase() as "" | "K" | "M" | "G"];
  return Number(match[1]) * 1024 ** power;
}
