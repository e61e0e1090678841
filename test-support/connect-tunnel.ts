import type { Server } from "node:http";
import { connect, type Socket } from "node:net";

/**
 * Makes `server` a forward proxy's tunnel end, as corporate HTTP proxies are: each
 * `CONNECT host:port` is answered 200 and piped to that address. `asked` hears each request
 * line ("CONNECT 127.0.0.1:4010"), for a test to assert the traffic went through.
 */
export function acceptConnectTunnels(server: Server, asked: (line: string) => void): void {
  server.on("connect", (req, client: Socket, head: Buffer) => {
    asked(`CONNECT ${req.url ?? ""}`);
    const [host = "127.0.0.1", port = ""] = (req.url ?? "").split(":");
    const tunnel = connect(Number(port), host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      tunnel.write(head);
      tunnel.pipe(client);
      client.pipe(tunnel);
    });
    tunnel.on("error", () => client.destroy());
    client.on("error", () => tunnel.destroy());
  });
}
