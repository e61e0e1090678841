/**
 * The errors a handler throws: an ApiError, which the error writer turns into the response, and the
 * two ends that send nothing (the client gone, the app closing).
 */
import type { FakeErrorCode } from "../../schemas/index.ts";

/** An expected failure of a request: becomes an HTTP error body through `sendError`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: FakeErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** The client went away before its request could be answered: nothing to send. */
export class ClientGoneError extends Error {
  constructor() {
    super("the client closed the connection before the request was read");
    this.name = "ClientGoneError";
  }
}

/** The app is closing: the running exchange stops where it is. */
export class ServerClosingError extends Error {
  constructor() {
    super("the fake server is closing");
    this.name = "ServerClosingError";
  }
}
