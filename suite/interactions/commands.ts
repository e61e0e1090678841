/**
 * The property's commands, as the walk (walk.ts) builds them from the sequence's state: every
 * request already concrete (identity, key, body, conversation), with the cells it covers once
 * answered. A command is one request, or a race: a request held open while others are sent at a
 * chosen point of it, each on its own connection.
 */
import type { Endpoint, Who } from "../model/operation.ts";
import type { KeyUse } from "./session.ts";
import type { DropPoint } from "./space.ts";

/** Connections the property keeps: races and read-backs go over other connections than the writes. */
export const LANES = 4;

interface Covers {
  /** Cells (`dimension:name`) covered once the request was answered, whatever the answer. */
  readonly cells: readonly string[];
  /** Input cells covered only when the service accepted the request (2xx): it then stored what they shape. */
  readonly acceptedCells?: readonly string[];
}

export interface CreateRequest extends Covers {
  readonly kind: "create";
  readonly who: Who;
  readonly endpoint: Endpoint;
  readonly key: string;
  readonly body: Record<string, unknown>;
  readonly message: string;
  /** The run-scoped tag the message starts with. */
  readonly tag: string;
  /** A replay of a key already answered 2xx: by the spec it consumes nothing. */
  readonly replay: boolean;
  /** Whether a conforming service may charge a create for it (what the budget holds back). */
  readonly charged: boolean;
  /** The one shape of the body the spec leaves open, if any (operation.ts). */
  readonly openShape?: string;
  readonly optionalFields: boolean;
  /** The earlier key this one sends again (a replay, a reuse, a retry), if any. */
  readonly again?: KeyUse;
  /** Drop the stream at this point, as a client cancelling it does. */
  readonly drop?: DropPoint;
  /** Its key is never sent again (a cancellation, not a retry to come). */
  readonly abandoned?: boolean;
}

export interface ListRequest extends Covers {
  readonly kind: "list";
  readonly who: Who;
  readonly conversationId: string;
  readonly query: { readonly page?: number; readonly pageSize?: number };
}

export interface DeleteRequest extends Covers {
  readonly kind: "delete";
  readonly who: Who;
  readonly conversationId: string;
}

export type Request = CreateRequest | ListRequest | DeleteRequest;

/** When the other requests of a race are sent, relative to the held one. */
export type Timing = "at-once" | "after-created" | "after-delta" | "after-completed";

export type Command =
  | {
      readonly kind: "one";
      readonly request: Request;
      readonly lane: number;
      /** The same request sent again on each of these lanes, one after another, once the first is answered. */
      readonly alsoOn?: readonly number[];
      /** A dropped stream sent again under its key at once, while it may still be running (client rule 1). */
      readonly retrySoon?: CreateRequest;
      /** A dropped stream sent again under its key once it has surely finished: its only retry, or the next after a soon one was refused (client rule 1). */
      readonly retryLate?: CreateRequest;
    }
  | {
      readonly kind: "race";
      readonly held: Request;
      readonly others: readonly Request[];
      readonly timing: Timing;
      /** The ordering class (space.ts) whose order the model's linearisation of this race covers. */
      readonly ordering?: string;
    };
