/**
 * What the model is fed: operations as a client observed them, one request and what came back,
 * with the times it was sent and answered. Plain data, built by whoever watched the wire (the
 * interaction property, the traffic judge); the model never sees HTTP objects.
 */

export { canonicalJson } from "../../schemas/canonical-json.ts";

export type Endpoint = "plain" | "stream";

/**
 * Who called, as far as scope goes: the run's primary identity, the other agent reachable with
 * the same key, or the other key of the same agent (another channel). A conversation belongs
 * to the identity that created it, and an Idempotency-Key is scoped to one identity.
 */
export type Who = "primary" | "otherAgent" | "otherKey" | Anonymous;

/** Callers the service must refuse (AUTH-1): no Authorization header, or a key nobody issued. */
export type Anonymous = "noKey" | "unknownKey";
export const isAnonymous = (caller: Caller): caller is Anonymous => caller === "noKey" || caller === "unknownKey";

/**
 * Whom the model holds an operation to: one of the property's identities, or any other label
 * (the traffic judge's "key and agent"). Two operations of one label share conversations and
 * Idempotency-Keys; of two labels, never. Only "otherKey" reaches the owner's agent through
 * another key (SCOPE-3); any other label that is not the owner's is another agent.
 */
export type Caller = Who | (string & {});

export const isWho = (caller: Caller): caller is Who =>
  caller === "primary" || caller === "otherAgent" || caller === "otherKey" || isAnonymous(caller);

/** What a create or a stream gave back, as far as the service's state goes. */
export interface CreateResult {
  conversationId: string;
  text: string;
  /** The citations as canonical JSON, compared as a whole. */
  citations: string;
}

/**
 * How an operation ended:
 * - `ok`: answered 2xx (a stream: ended with response.completed);
 * - `refused`: answered 4xx, which the spec reads as "nothing happened";
 * - `unknown`: a 5xx, an `error` event, a stream that broke off, a timeout: it may or may not
 *   have taken effect, and the model keeps both possibilities open until a listing decides.
 */
export type Outcome<T> =
  | { readonly type: "ok"; readonly status: number; readonly value: T }
  | { readonly type: "refused"; readonly status: number; readonly code: string | undefined }
  | { readonly type: "unknown"; readonly status: number | undefined; readonly reason: string };

interface Timed {
  /** Position in the history, from 1; how transcripts and violations name it (#n). */
  readonly index: number;
  /** Milliseconds on one clock: when the request was sent and when its answer ended. */
  readonly start: number;
  readonly end: number;
  readonly who: Caller;
}

export interface CreateOp extends Timed {
  readonly kind: "create";
  readonly endpoint: Endpoint;
  /** The Idempotency-Key sent, or null. */
  readonly key: string | null;
  readonly message: string;
  /** The conversation the body continued, if any. */
  readonly conversationId: string | null;
  /** The body as canonical JSON: what "the same payload" compares. */
  readonly payload: string;
  /** The body as sent, when its writing may differ from one request to the next (traffic); IDEM-8 compares it. */
  readonly raw?: string;
  /**
   * The one shape of the body the spec leaves a service free to refuse (a message longer than
   * it takes, metadata nested deeper than it validates): refused or accepted, the service is then
   * held to that choice. Absent when the body is one every service must accept.
   */
  readonly openShape?: string;
  /** The body carries `external_reference` or `metadata`: a refusal then breaks RESP-6 first. */
  readonly optionalFields?: boolean;
  /**
   * Nothing outside this history touches what it touches (the property's own run): a fresh key
   * answered 409 when nothing overlapped it then has no excuse. Traffic others share has one.
   */
  readonly exclusive?: boolean;
  readonly outcome: Outcome<CreateResult>;
}

/** The parts of a listing answer the model reads (already parsed by the spec's schema). */
export interface ListingValue {
  readonly conversationId: string;
  readonly page: number;
  readonly pageSize: number;
  readonly total: number;
  readonly hasMore: boolean;
  readonly items: readonly unknown[];
  readonly createdAt: unknown;
  readonly updatedAt: unknown;
}

/** Whether the page holds the whole conversation: its first page, with every message the total counts. */
export const holdsWholeConversation = (page: ListingValue): boolean =>
  page.page === 1 && page.items.length === page.total;

export interface ListOp extends Timed {
  readonly kind: "list";
  readonly conversationId: string;
  /** The query parameters sent; absent ones are the spec's defaults. */
  readonly query: { readonly page?: number; readonly pageSize?: number };
  /** A 2xx whose body is not a listing is `unknown` here; the shape is judged on its own (LIST-1). */
  readonly outcome: Outcome<ListingValue>;
  /**
   * Set when the listing may lag behind the latest writes (begun within --settle-ms of one): the
   * exchanges that ended after this instant may not show yet. Unset: it shows every exchange.
   */
  readonly lagsFrom?: number;
  /**
   * Exchanges of unknown outcome that the service answered (a 5xx) before this instant show in
   * this listing or never: --settle-ms before it began. Unset: they may still arrive.
   */
  readonly settledBefore?: number;
}

export interface DeleteOp extends Timed {
  readonly kind: "delete";
  readonly conversationId: string;
  readonly outcome: Outcome<null>;
}

export type Op = CreateOp | ListOp | DeleteOp;

/** Two operations overlap when each was sent before the other was answered. */
export function overlaps(a: Op, b: Op): boolean {
  return a.start < b.end && b.start < a.end;
}

/** UUIDs may come back in either case. */
export function sameConversation(a: string | null | undefined, b: string | null | undefined): boolean {
  return typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase();
}

export function sameResult(a: CreateResult, b: CreateResult): boolean {
  return sameConversation(a.conversationId, b.conversationId) && a.text === b.text && a.citations === b.citations;
}
