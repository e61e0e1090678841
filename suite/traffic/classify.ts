/**
 * What an observed exchange was, as far as the spec is concerned: which operation, on which
 * agent and conversation, under which key. Paths are found wherever they sit under a base
 * path (`/api/agents-service/v1/...`); anything else (the fake's /__fake, a health check) is
 * not an operation of the spec and is not judged.
 */
import { tryParseJson } from "../http/response-body.ts";
import type { ObservedExchange } from "./exchange.ts";

export type Operation = "create" | "stream" | "list" | "delete";

export interface Classified {
  readonly exchange: ObservedExchange;
  readonly operation: Operation;
  readonly agent: string;
  /** The conversation in the path (list, delete); for creates, the body's conversation_id if a string. */
  readonly conversationId: string | undefined;
  /** The bearer token, or undefined without a well-formed Bearer header. */
  readonly token: string | undefined;
  readonly idempotencyKey: string | undefined;
  /** The request body parsed as JSON (creates); undefined when it is not JSON. */
  readonly body: unknown;
  readonly query: URLSearchParams;
}

const OPERATION = /\/v1\/agents\/([^/]+)\/(?:(responses)(\/stream)?|conversations\/([^/]+)(\/messages)?)$/;

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer +(\S+)\s*$/i.exec(authorization ?? "");
  return match?.[1];
}

export function classify(exchange: ObservedExchange): Classified | undefined {
  let url: URL;
  try {
    url = new URL(exchange.request.url);
  } catch {
    return undefined;
  }
  const match = OPERATION.exec(url.pathname);
  if (match === null) return undefined;
  const method = exchange.request.method.toUpperCase();
  const [, agent = "", responses, stream, conversation, messages] = match;
  let operation: Operation | undefined;
  if (responses !== undefined && method === "POST") operation = stream === undefined ? "create" : "stream";
  else if (conversation !== undefined && messages !== undefined && method === "GET") operation = "list";
  else if (conversation !== undefined && messages === undefined && method === "DELETE") operation = "delete";
  if (operation === undefined) return undefined;
  const { headers } = exchange.request;
  const body = operation === "create" || operation === "stream" ? tryParseJson(exchange.request.body ?? "") : undefined;
  const bodyConversation = (body as { conversation_id?: unknown } | undefined)?.conversation_id;
  return {
    exchange,
    operation,
    agent: decoded(agent),
    conversationId:
      conversation !== undefined
        ? decoded(conversation).toLowerCase()
        : typeof bodyConversation === "string"
          ? bodyConversation.toLowerCase()
          : undefined,
    token: bearerToken(headers["authorization"]),
    idempotencyKey: headers["idempotency-key"],
    body,
    query: url.searchParams,
  };
}
