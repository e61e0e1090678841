/**
 * A chat app served from an origin of its own (one page and app-page.js), for the browser tests
 * that call the fake across origins as a web client does.
 */
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** The app's own origin for the browser tests: one page and its script, on a port of its own. */
export interface AppOrigin {
  /** The page's address, e.g. http://127.0.0.1:PORT/ */
  url: string;
  close(): Promise<void>;
}

const PAGE = '<!doctype html><meta charset="utf-8"><title>chat app</title><script src="/app.js"></script>';

export async function startAppOrigin(): Promise<AppOrigin> {
  const script = await readFile(new URL("./app-page.js", import.meta.url), "utf8");
  const server = createServer((req, res) => {
    const [type, body] =
      req.url === "/"
        ? ["text/html", PAGE]
        : req.url === "/app.js"
          ? ["text/javascript", script]
          : [undefined, "not found"];
    res.writeHead(type === undefined ? 404 : 200, {
      "content-type": `${type ?? "text/plain"}; charset=utf-8`,
      "cache-control": "no-store",
    });
    res.end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
