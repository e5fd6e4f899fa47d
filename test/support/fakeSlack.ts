import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type SlackBehaviour = "ok" | "500" | "hang";

export interface SlackCall {
  method: string;
  headers: IncomingHttpHeaders;
  params: Record<string, string>;
  at: number;
  behaviour: SlackBehaviour;
}

/**
 * A local stand-in for Slack's Web API (POST {base}/chat.postMessage, chat.update, form-encoded).
 * `behave` decides per call: answer like Slack, answer 500, or hold the connection without answering.
 */
export class FakeSlack {
  calls: SlackCall[] = [];
  behave: (call: { method: string; index: number }) => SlackBehaviour = () => "ok";
  /** Base URL for SLACK_API_URL. */
  apiUrl = "";
  private server: Server | undefined;
  private readonly hung: ServerResponse[] = [];
  private seq = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => (body += chunk));
      req.on("end", () => {
        const method = (req.url ?? "").replace(/^\/api\//, "");
        const params = Object.fromEntries(new URLSearchParams(body));
        const behaviour = this.behave({ method, index: this.calls.length });
        this.calls.push({ method, headers: req.headers, params, at: Date.now(), behaviour });
        if (behaviour === "hang") {
          this.hung.push(res);
          return;
        }
        if (behaviour === "500") {
          res.writeHead(500, { "content-type": "text/plain" }).end("Internal Server Error");
          return;
        }
        const ts = method === "chat.postMessage" ? `1700000000.${String(++this.seq).padStart(6, "0")}` : params.ts;
        res.writeHead(200, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify({ ok: true, channel: params.channel, ts }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.apiUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/`;
    return this;
  }

  /** Blocks of a call, parsed from the form field Slack's client sends as JSON. */
  static blocks(call: SlackCall): Array<Record<string, unknown>> {
    return JSON.parse(call.params.blocks ?? "[]") as Array<Record<string, unknown>>;
  }

  /** Drops held connections too, so a client stuck on a hang fails at once. */
  async stop(): Promise<void> {
    for (const res of this.hung) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
