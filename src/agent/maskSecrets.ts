/** GitHub token shapes (classic, fine-grained, app installation, OAuth, refresh) and bearer headers. */
const TOKEN_PATTERNS = [
  /\b(gh[pousr]_[A-Za-z0-9]{20,255})\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,255}\b/g,
  /\b(xox[abposr]-[A-Za-z0-9-]{10,})\b/g,
  /(authorization:\s*(?:bearer|token|basic)\s+)[^\s"']+/gi,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

/** Masks known secrets and token-shaped strings before text leaves the process (logs, comments). */
export function maskSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 8) out = out.split(secret).join("***");
  }
  for (const pattern of TOKEN_PATTERNS) {
    out = out.replace(pattern, (match, prefix?: string) => (typeof prefix === "string" && /authorization/i.test(prefix) ? `${prefix}***` : "***"));
  }
  return out;
}
