import { randomBytes } from "node:crypto";

/**
 * One-time messages for the page a POST redirects to ("GitHub refused …"). The redirect carries an
 * id, not the text, so a link from elsewhere cannot make the page say something.
 */
export class Notices {
  private readonly texts = new Map<string, string>();

  constructor(private readonly keep = 100) {}

  add(text: string): string {
    const id = randomBytes(8).toString("hex");
    this.texts.set(id, text);
    // The oldest go first; a page nobody loaded does not hold its message forever.
    for (const old of this.texts.keys()) {
      if (this.texts.size <= this.keep) break;
      this.texts.delete(old);
    }
    return id;
  }

  /** The message, once. */
  take(id: string | null): string | undefined {
    if (id === null) return undefined;
    const text = this.texts.get(id);
    this.texts.delete(id);
    return text;
  }
}
