/**
 * Three kinds of failure, kept apart because they mean different things:
 * - HarnessError: the harness itself cannot do its job (target unreachable, bad argument,
 *   a check spending more than it declared). The run's verdict is void: exit code 2.
 * - TargetError: the target misbehaved at the HTTP level (reset mid-body, oversized or
 *   garbled response). That is a conformance failure of the check that saw it.
 * - InconclusiveError: the check ran, but the target never let it finish (a timeout, retries
 *   exhausted). Slowness and rate limits are not non-conformance: the check judges nothing,
 *   and the report names the flag that gives the target more room.
 * Callers branch on `name` and `kind`, never on message text.
 */

import type { Transcript } from "./types.ts";

export type TargetErrorKind =
  | "timeout" // no complete answer within the configured time
  | "connection-reset" // the connection broke before the response was complete
  | "size-cap" // the body exceeded the configured byte cap
  | "protocol"; // the bytes were not valid HTTP (or lied about their length)

export type HarnessErrorKind =
  | "unreachable" // connection refused, DNS failure, connect timeout
  | "tls" // certificate or handshake failure
  | "invalid-request" // the harness built a request undici refuses (bad header, bad URL)
  | "budget" // a check spent more creates than it declared
  | "configuration" // the suite was started without the configuration it needs
  | "internal"; // anything the harness does not understand

export class HarnessError extends Error {
  override readonly name = "HarnessError";
  readonly kind: HarnessErrorKind;
  constructor(kind: HarnessErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }
}

export class TargetError extends Error {
  override readonly name = "TargetError";
  readonly kind: TargetErrorKind;
  readonly transcript: Transcript | undefined;
  constructor(kind: TargetErrorKind, message: string, transcript?: Transcript) {
    super(message);
    this.kind = kind;
    this.transcript = transcript;
  }
}

type NetworkFailure =
  { side: "harness"; kind: HarnessErrorKind; code: string } | { side: "target"; kind: TargetErrorKind; code: string };

const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_FAIL",
  "EAI_NONAME",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "ENETDOWN",
  "EADDRNOTAVAIL",
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
]);
const TLS = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "EPROTO",
]);
const INVALID_REQUEST = new Set([
  "UND_ERR_INVALID_ARG",
  "ERR_INVALID_URL",
  "ERR_INVALID_ARG_TYPE",
  "ERR_INVALID_ARG_VALUE",
  "UND_ERR_NOT_SUPPORTED",
  "ERR_INVALID_HTTP_TOKEN",
  "ERR_INVALID_CHAR",
]);
const RESET = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "ECONNABORTED"]);
const TIMEOUT = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);
const PROTOCOL = new Set(["UND_ERR_RES_CONTENT_LENGTH_MISMATCH", "UND_ERR_INFO", "UND_ERR_RES_EXCEEDED_MAX_SIZE"]);

function codeOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

/** The first error code found on the error or its causes (undici wraps socket errors). */
function errorCodeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const code = codeOf(current);
    if (code !== undefined) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** undici's parser errors do not always carry a code, but always this name. */
function isParserError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    if ((current as { name?: unknown }).name === "HTTPParserError") return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Which side a network-level failure belongs to, decided by its code (or undici's error name). */
export function classifyNetworkError(error: unknown): NetworkFailure {
  if (isParserError(error)) return { side: "target", kind: "protocol", code: errorCodeOf(error) ?? "HTTPParserError" };
  const code = errorCodeOf(error) ?? "UNKNOWN";
  if (UNREACHABLE.has(code)) return { side: "harness", kind: "unreachable", code };
  if (TLS.has(code) || code.startsWith("ERR_TLS_") || code.startsWith("ERR_SSL_") || code.startsWith("CERT_")) {
    return { side: "harness", kind: "tls", code };
  }
  if (INVALID_REQUEST.has(code)) return { side: "harness", kind: "invalid-request", code };
  if (RESET.has(code)) return { side: "target", kind: "connection-reset", code };
  if (TIMEOUT.has(code)) return { side: "target", kind: "timeout", code };
  if (PROTOCOL.has(code) || code.startsWith("HPE_")) return { side: "target", kind: "protocol", code };
  // Not understood: do not blame the target for it.
  return { side: "harness", kind: "internal", code };
}

/** A short, key-free description of a network error for messages. */
export function describeNetworkError(error: unknown): string {
  const code = errorCodeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return code !== undefined && !message.includes(code) ? `${code}: ${message}` : message;
}

export type InconclusiveKind =
  | "timeout" // a request, stream or the check itself ran out of its time
  | "retries"; // the target kept answering 429/503 ("try later") past --max-retries

export class InconclusiveError extends Error {
  override readonly name = "InconclusiveError";
  readonly kind: InconclusiveKind;
  /** The flag that gives the target more room, e.g. "--request-timeout". */
  readonly flag: string;
  /** What happened, without the advice the message adds. */
  readonly detail: string;
  readonly transcript: Transcript | undefined;
  constructor(kind: InconclusiveKind, detail: string, flag: string, transcript?: Transcript) {
    super(`${detail} (inconclusive: raise ${flag} to give the target more room)`);
    this.kind = kind;
    this.flag = flag;
    this.detail = detail;
    this.transcript = transcript;
  }
}

/** The InconclusiveError behind an error, also when fast-check wrapped it as a property's cause. */
export function inconclusiveCause(error: unknown): InconclusiveError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    if (current instanceof InconclusiveError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
