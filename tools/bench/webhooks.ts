import { randomUUID } from "node:crypto";
import { Agent, request } from "node:http";
import type { SimComment, SimIssue, SimRepo } from "../simulator/index.js";
import { signatureHeaders } from "../simulator/webhooks.js";

/**
 * Webhook deliveries fired by the benchmark itself (the simulator's dispatcher sends one at a time,
 * as GitHub's does per hook, which would measure the dispatcher rather than the app). Signed with
 * the shared secret by the simulator's own signatureHeaders (tools/simulator/webhooks.ts).
 */
export interface SignedDelivery {
  id: string;
  event: string;
  body: string;
  headers: Record<string, string>;
}

export async function signDelivery(secret: string, appId: number, event: string, payload: unknown): Promise<SignedDelivery> {
  const body = JSON.stringify(payload);
  const id = randomUUID();
  return {
    id,
    event,
    body,
    headers: {
      "Content-Type": "application/json",
      "Content-Length": String(Buffer.byteLength(body)),
      "User-Agent": "GitHub-Hookshot/bench",
      "X-GitHub-Event": event,
      "X-GitHub-Delivery": id,
      "X-GitHub-Hook-ID": String(400_000 + appId),
      "X-GitHub-Hook-Installation-Target-Type": "integration",
      "X-GitHub-Hook-Installation-Target-ID": String(appId),
      ...(await signatureHeaders(secret, body)),
    },
  };
}

const user = (login: string, id: number, type: string) => ({ login, id, node_id: `U_${id}`, type, site_admin: false });

/** An issue_comment.created payload with GitHub's shape, for a comment that exists in the simulator. */
export function commentCreatedPayload(repo: SimRepo, issue: SimIssue, comment: SimComment): unknown {
  const [owner] = repo.full_name.split("/");
  return {
    action: "created",
    issue: {
      id: issue.id,
      number: issue.number,
      title: issue.title,
      body: issue.body,
      html_url: issue.html_url,
      state: issue.state,
      labels: issue.labels.map((name) => ({ name })),
      assignees: issue.assignees.map((login) => ({ login })),
      user: user(issue.user.login, issue.user.id, issue.user.type),
      comments: issue.comments,
      created_at: issue.created_at,
      updated_at: issue.updated_at,
    },
    comment: {
      id: comment.id,
      body: comment.body,
      html_url: comment.html_url,
      created_at: comment.created_at,
      updated_at: comment.updated_at,
      user: user(comment.user.login, comment.user.id, comment.user.type),
      author_association: "COLLABORATOR",
    },
    repository: { id: repo.id, name: repo.name, full_name: repo.full_name, private: repo.private, owner: { login: owner }, html_url: repo.html_url },
    sender: user(comment.user.login, comment.user.id, comment.user.type),
    installation: { id: repo.installation_id },
  };
}

export interface FireResult {
  status: number | "error";
  sentAt: number;
  ackedAt: number;
}

/** POSTs deliveries to `url` with at most `concurrency` in flight over keep-alive connections. */
export async function fireDeliveries(url: string, deliveries: readonly SignedDelivery[], concurrency: number): Promise<FireResult[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url);
  const results = new Array<FireResult>(deliveries.length);
  let next = 0;
  const one = (delivery: SignedDelivery): Promise<FireResult> =>
    new Promise((resolve) => {
      const sentAt = performance.timeOrigin + performance.now();
      const req = request(target, { method: "POST", headers: delivery.headers, agent }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, sentAt, ackedAt: performance.timeOrigin + performance.now() }));
        res.on("error", () => resolve({ status: "error", sentAt, ackedAt: performance.timeOrigin + performance.now() }));
      });
      req.setTimeout(10_000, () => req.destroy(new Error("timeout")));
      req.on("error", () => resolve({ status: "error", sentAt, ackedAt: performance.timeOrigin + performance.now() }));
      req.end(delivery.body);
    });
  const worker = async () => {
    while (next < deliveries.length) {
      const index = next++;
      results[index] = await one(deliveries[index]!);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, deliveries.length) }, worker));
  } finally {
    agent.destroy();
  }
  return results;
}
