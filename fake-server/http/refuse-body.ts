/**
 * Refusing a request whose body is still arriving: the rest is read and dropped first, within a
 * bound, so a client that sends its whole body before it reads sees the refusal, not a reset
 * connection.
 */
import type { IncomingMessage } from "node:http";
import { ApiError, ClientGoneError } from "./api-error.ts";

/** How far past its cap a refused body is still read, and dropped, before the refusal is sent. */
export const DRAIN_BYTES_PAST_CAP = 8 * 1024 * 1024;

/** The refusal, asking to close the connection: the rest of the body is not worth reading. */
function closing(error: ApiError): ApiError {
  return new ApiError(error.status, error.code, error.message, { ...error.headers, Connection: "close" });
}

/**
 * Refuses a request whose body is still arriving once the rest of it has been read and
 * dropped. A server that answers and hangs up while the client still sends makes the
 * client's side reset the connection (EPIPE, ECONNRESET), and many clients, sending the
 * whole body before they read, never see the answer. Up to `limit` bytes in all are read;
 * past that the refusal goes at once with `Connection: close`, as production servers bound
 * their lingering too. `read` is how much of the body was read already.
 */
export function refuseOnceDrained(req: IncomingMessage, error: ApiError, read: number, limit: number): Promise<never> {
  if (req.readableEnded || req.complete) {
    req.resume();
    return Promise.reject(error);
  }
  return new Promise<never>((_, reject) => {
    let drained = read;
    const settle = (reason: Error) => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onGone);
      req.off("close", onGone);
      reject(reason);
    };
    const onData = (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > limit) settle(closing(error));
    };
    const onEnd = () => settle(error);
    const onGone = () => settle(new ClientGoneError());
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onGone);
    req.on("close", onGone);
    req.resume();
  });
}

/** A refusal sent before any of the body is read: drained first when its declared length is within `limit`. */
export function refuseUnread(req: IncomingMessage, error: ApiError, limit: number): Promise<never> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(closing(error));
  }
  return refuseOnceDrained(req, error, 0, limit);
}

/**
 * Whether the request still has a body that nothing began to read: one is announced
 * (a length above 0, or chunks) and the stream was neither read nor resumed. A refusal sent
 * now would leave the client sending into a connection about to close.
 */
export function bodyUnread(req: IncomingMessage): boolean {
  if (req.readableFlowing !== null || req.readableEnded || req.complete) return false;
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && Number(length) > 0);
}
