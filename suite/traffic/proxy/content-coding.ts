/**
 * Bodies in a content coding (RFC 9110 §8.4), decoded for the judge only: a service behind a
 * compressing gateway answers a browser's `Accept-Encoding` with gzip or br, and the copy the
 * proxy keeps holds those bytes. What is forwarded is never touched.
 */
import zlib from "node:zlib";

export type DecodedBody =
  /** `coded`: the bytes were decoded, so the network reads no longer map onto the text. */
  | { readonly text: string; readonly coded: boolean }
  /** A coding this Node cannot decode, or bytes that are not in it: the body is unknown. */
  | { readonly unreadable: string };

/** A zip bomb must not take the proxy's memory: past this the body is not judged. */
const MAX_DECODED_BYTES = 16 * 1024 * 1024;

// A body cut short (a stream the client left, a broken upstream) still yields what it held.
const SYNC_FLUSH = { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: MAX_DECODED_BYTES };
const BROTLI_FLUSH = { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH, maxOutputLength: MAX_DECODED_BYTES };

/** "deflate" is zlib-wrapped (RFC 9110 §8.4.1.2), but some servers send it raw. */
function inflate(bytes: Buffer): Buffer {
  try {
    return zlib.inflateSync(bytes, SYNC_FLUSH);
  } catch {
    return zlib.inflateRawSync(bytes, SYNC_FLUSH);
  }
}

const DECODERS: Record<string, (bytes: Buffer) => Buffer> = {
  gzip: (bytes) => zlib.gunzipSync(bytes, SYNC_FLUSH),
  "x-gzip": (bytes) => zlib.gunzipSync(bytes, SYNC_FLUSH),
  deflate: inflate,
  br: (bytes) => zlib.brotliDecompressSync(bytes, BROTLI_FLUSH),
};

// zstd arrived in Node 22.15; use it where this Node has it.
const zstd = (zlib as unknown as { zstdDecompressSync?: (bytes: Buffer, options?: object) => Buffer })
  .zstdDecompressSync;
if (zstd !== undefined) DECODERS["zstd"] = (bytes) => zstd(bytes, { maxOutputLength: MAX_DECODED_BYTES });

/** The body's text, given the message's Content-Encoding header (codings listed in the order applied). */
export function decodeBody(bytes: Buffer, contentEncoding: string | undefined): DecodedBody {
  const codings = (contentEncoding ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
  if (codings.length === 0 || bytes.length === 0) return { text: bytes.toString("utf8"), coded: false };
  let decoded = bytes;
  for (const coding of codings.reverse()) {
    const decode = DECODERS[coding];
    if (decode === undefined)
      return {
        unreadable: `the body is in the content coding ${JSON.stringify(coding)}, which the judge cannot decode`,
      };
    try {
      decoded = decode(decoded);
    } catch (error) {
      if ((error as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE")
        return { unreadable: `the body decodes to more than ${MAX_DECODED_BYTES} bytes` };
      return {
        unreadable: `the body is not valid ${coding}: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  }
  return { text: decoded.toString("utf8"), coded: true };
}
