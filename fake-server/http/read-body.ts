import type { IncomingMessage } from "node:http";
import { ApiError, ClientGoneError } from "./api-error.ts";

function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const [mediaType = ""] = contentType.split(";");
  return mediaType.trim().toLowerCase() === "application/json";
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, "payload_too_large", `the request body is larger than ${maxBytes} bytes; send a smaller body`);
}

/**
 * Reads at most `maxBytes` of the body. Past the cap it stops collecting at once and lets
 * the rest drain unbuffered, so the 413 can still reach the client on the same connection.
 */
function readCapped(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return Promise.reject(tooLarge(maxBytes));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onGone);
      req.off("close", onGone);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        chunks.length = 0;
        req.resume();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onGone = () => {
      cleanup();
      reject(new ClientGoneError());
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onGone);
    req.on("close", onGone);
  });
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The request body parsed as JSON, after the Content-Type and size checks. */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const contentType = req.headers["content-type"];
  if (!isJsonMediaType(contentType)) {
    req.resume();
    throw new ApiError(
      415,
      "unsupported_media_type",
      contentType === undefined
        ? "the request has no Content-Type; send the JSON body with Content-Type: application/json"
        : `Content-Type ${JSON.stringify(contentType)} is not supported; send the body as application/json`,
    );
  }
  const bytes = await readCapped(req, maxBytes);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError(400, "invalid_json", "the request body is not valid UTF-8; send JSON encoded as UTF-8");
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new ApiError(400, "invalid_json", `the request body is not valid JSON (${detail}); send a JSON object`);
  }
}
