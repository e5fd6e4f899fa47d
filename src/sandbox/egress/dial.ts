import { lookup } from "node:dns/promises";
import { connect as netConnect, type Socket } from "node:net";

/** Resolves a host name to its addresses, in the order to try them. */
export type Resolve = (host: string) => Promise<string[]>;

/** Opens a TCP connection to exactly this address (no name lookup). The socket emits `connect` or `error`. */
export type Dial = (to: { address: string; port: number }) => Socket;

/** The system resolver (/etc/hosts, then DNS), every address, in the resolver's order. */
export const systemResolve: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export const tcpDial: Dial = ({ address, port }) => netConnect({ host: address, port });

/** Connects to the first of `addresses` that answers; each was already decided on, so trying the next is no new decision. */
export async function dialFirst(dial: Dial, addresses: readonly string[], port: number, timeoutMs: number): Promise<Socket> {
  let lastError: unknown;
  for (const address of addresses) {
    try {
      return await new Promise<Socket>((resolve, reject) => {
        const socket = dial({ address, port });
        const fail = (error: Error) => {
          socket.destroy();
          reject(error);
        };
        socket.setTimeout(timeoutMs, () => fail(new Error(`no answer from ${address}:${port} within ${timeoutMs} ms`)));
        socket.once("error", fail);
        socket.once("connect", () => {
          socket.removeListener("error", fail);
          socket.setTimeout(0);
          resolve(socket);
        });
      });
    } catch (error) {
      lastError = error;
    }
  }
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows what the last dial threw
  throw lastError ?? new Error("no address to dial");
}
