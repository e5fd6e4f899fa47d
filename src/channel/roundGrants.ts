import { randomBytes } from "node:crypto";

/** What the round's agent may have the app do for it: write on its issue, push its one branch. */
export interface RoundGrant {
  installationId: number;
  repo: string;
  issue: number;
  round: number;
  /** With the workspace on: the only branch a push may update, through the app's own token for the repository's git URL. */
  push?: { branch: string; cloneUrl: string; token: string };
}

/**
 * The open rounds' channel credentials, in this process's memory only (never in Redis, where job
 * data is clear text): a credential is good from its round's preparation until the round ends, and
 * worthless once closed or in any other process.
 */
export class RoundGrants {
  private readonly open = new Map<string, RoundGrant>();

  /** A fresh credential for `grant`: 32 random bytes, base64url. */
  issue(grant: RoundGrant): string {
    const credential = randomBytes(32).toString("base64url");
    this.open.set(credential, grant);
    return credential;
  }

  find(credential: string): RoundGrant | undefined {
    return this.open.get(credential);
  }

  close(credential: string): void {
    this.open.delete(credential);
  }

  get size(): number {
    return this.open.size;
  }
}
