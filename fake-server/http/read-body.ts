/**
 * Reading a request body: a create's Content-Type (415 unless JSON), the size cap (413, the excess
 * drained so the client reads it), strict UTF-8 and JSON (400 `invalid_json`). Control endpoints
 * take JSON whatever its type.
 */
import type { IncomingMessage } from "node:http";
import { ApiError, ClientGoneError } from "./api-error.ts";
import { DRAIN_BYTES_PAST_CAP, refuseOnceDrained, refuseUnread } from "./refuse-body.ts";

/** application/json in any case, with or without parameters, whitespace around it as trim() drops it; no string built. */
const JSON_MEDIA_TYPE = /^\s*application\/json\s*(?:;|$)/i;

export function isJsonMediaType(contentType: string | undefined): boolean {
  return contentType !== undefined && JSON_MEDIA_TYPE.test(contentType);
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(
    413,
    "payload_too_large",
    `the request body is larger than ${maxBytes} bytes; send a smaller body`,
  );
}

/** A body being read; kept on the request so the listeners below are shared, not built per request. */
class BodyRead {
  readonly chunks: Buffer[] = [];
  size = 0;

  constructor(
    readonly maxBytes: number,
    /** Called with the parsed body: the read settles once, with JSON or with the reason there is none. */
    readonly resolve: (body: unknown) => void,
    readonly reject: (error: Error) => void,
  ) {}
}

const READING = Symbol("read-body.reading");
type ReadRequest = IncomingMessage & { [READING]?: BodyRead };

/**
 * The read is over: the listeners stay (each does nothing without a read in progress), as
 * removing four listeners per request costs more than leaving them to go with the request.
 */
function stopReading(req: ReadRequest): BodyRead | undefined {
  const read = req[READING];
  req[READING] = undefined;
  return read;
}

function onData(this: ReadRequest, chunk: Buffer): void {
  const read = this[READING];
  if (read === undefined) return;
  read.size += chunk.length;
  if (read.size > read.maxBytes) {
    stopReading(this);
    read.chunks.length = 0;
    refuseOnceDrained(this, tooLarge(read.maxBytes), read.size, read.maxBytes + DRAIN_BYTES_PAST_CAP).catch(
      read.reject,
    );
    return;
  }
  read.chunks.push(chunk);
}

function onEnd(this: ReadRequest): void {
  const read = stopReading(this);
  if (read === undefined) return;
  let body: unknown;
  try {
    body = parseJson(
      read.chunks.length === 1 && read.chunks[0] !== undefined ? read.chunks[0] : Buffer.concat(read.chunks, read.size),
      this,
    );
  } catch (error) {
    read.reject(error as Error);
    return;
  }
  read.resolve(body);
}

function onGone(this: ReadRequest): void {
  stopReading(this)?.reject(new ClientGoneError());
}

/**
 * Reads at most `maxBytes` of the body and parses it. Past the cap it stops collecting at
 * once and drains the rest unbuffered (a bounded amount) before the 413, so the client,
 * still sending, reads it rather than a reset connection.
 */
function readCapped(req: ReadRequest, maxBytes: number): Promise<unknown> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    return refuseUnread(req, tooLarge(maxBytes), maxBytes + DRAIN_BYTES_PAST_CAP);
  }
  return new Promise<unknown>((resolve, reject) => {
    req[READING] = new BodyRead(maxBytes, resolve, reject);
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onGone);
    req.on("close", onGone);
  });
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The request body parsed as JSON, after the Content-Type and size checks. Not an async
 * function: the one promise is the read's own, which settles with the parsed body.
 */
export function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const contentType = req.headers["content-type"];
  if (!isJsonMediaType(contentType)) {
    return refuseUnread(
      req,
      new ApiError(
        415,
        "unsupported_media_type",
        contentType === undefined
          ? "the request has no Content-Type; send the JSON body with Content-Type: application/json"
          : `Content-Type ${JSON.stringify(contentType)} is not supported; send the body as application/json`,
      ),
      maxBytes + DRAIN_BYTES_PAST_CAP,
    );
  }
  return readCapped(req, maxBytes);
}

/** A control endpoint's body parsed as JSON whatever its Content-Type: curl's default type is welcome there. */
export function readControlBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  return readCapped(req, maxBytes);
}

/** How much of a body the request log keeps. */
export const LOGGED_BODY_CHARS = 8192;

/** UTF-8 and JSON checks of a whole body; throws the 400 to answer. Its text is kept on the request for the log. */
function parseJson(bytes: Buffer, req: IncomingMessage & { bodyText?: string }): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    req.bodyText = bytes.toString("latin1", 0, LOGGED_BODY_CHARS);
    throw new ApiError(400, "invalid_json", "the request body is not valid UTF-8; send JSON encoded as UTF-8");
  }
  // Decoded afresh when long: a slice of the text would keep the whole body alive in the log.
  req.bodyText = bytes.length <= LOGGED_BODY_CHARS ? text : bytes.toString("utf8", 0, LOGGED_BODY_CHARS);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new ApiError(400, "invalid_json", `the request body is not valid JSON (${detail}); send a JSON object`);
  }
}
