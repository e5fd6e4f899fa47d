import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local HTTP server that records every request and answers with `reply` (settable per test). */
export class RecordingApi {
  requests: RecordedRequest[] = [];
  reply: { status: number; json: unknown } = { status: 201, json: { id: 9001, html_url: "https://github.com/acme/widgets/issues/12#issuecomment-9001" } };
  url = "";
  private server: Server | undefined;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => (body += chunk));
      req.on("end", () => {
        this.requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
        res.writeHead(this.reply.status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(this.reply.json));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The comment bodies POSTed so far. */
  bodies(): string[] {
    return this.requests.map((r) => (JSON.parse(r.body) as { body: string }).body);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
