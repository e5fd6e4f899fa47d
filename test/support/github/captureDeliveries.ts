import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { GitHubSimulator } from "../../../tools/simulator/index.js";

export interface CapturedDelivery {
  event: string;
  action: string;
  payload: Record<string, unknown>;
}

/** Runs `drive` against a fresh simulator and returns every webhook it sent, as received over HTTP. */
export async function captureDeliveries(drive: (sim: GitHubSimulator) => void | Promise<void>): Promise<CapturedDelivery[]> {
  const captured: CapturedDelivery[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const payload = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      captured.push({ event: String(req.headers["x-github-event"]), action: String(payload.action), payload });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const { port } = receiver.address() as AddressInfo;
  const sim = await GitHubSimulator.start({ webhookSecret: "schema-check", webhookUrl: `http://127.0.0.1:${port}/` });
  try {
    await drive(sim);
    await sim.whenDelivered();
  } finally {
    await sim.stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
  return captured;
}
