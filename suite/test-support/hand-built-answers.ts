/**
 * Plain answers built by hand for the tests of the judgements that read them: a conforming
 * response result or listing page by default, with the body or status a test names.
 */
import type { HttpResult } from "../http/types.ts";

export const CONVERSATION = "5a7d1c2e-3b4f-4a6e-8c9d-0e1f2a3b4c5d";

/** An answer with `json` as its body (`undefined`: a body that is not JSON). */
export function httpAnswer(json: unknown, status = 200): HttpResult {
  const text = json === undefined ? "not json" : JSON.stringify(json);
  return {
    status,
    headers: { "content-type": "application/json" },
    text,
    json,
    transcript: {
      request: { method: "GET", url: "http://127.0.0.1:1/v1/x", headers: {} },
      response: { status, headers: { "content-type": "application/json" }, body: text },
      durationMs: 3,
    },
  };
}

/** A conforming response result. */
export const responseResult = (conversationId = CONVERSATION) => ({
  conversation_id: conversationId,
  response: "Hello.",
  citations: [],
});

/** A page of `total` messages that adds up, as page 1 of size 50 unless told otherwise. */
export function listingPage(
  overrides: {
    id?: string;
    page?: number;
    page_size?: number;
    total?: number;
    items?: unknown[];
    has_more?: boolean;
  } = {},
) {
  const page = overrides.page ?? 1;
  const size = overrides.page_size ?? 50;
  const total = overrides.total ?? 2;
  const length = Math.min(size, Math.max(0, total - (page - 1) * size));
  const item = (i: number) => ({
    id: `m${i}`,
    role: i % 2 === 0 ? "user" : "assistant",
    content: `message ${i}`,
    created_at: "2026-01-01T00:00:00Z",
  });
  return {
    conversation: {
      id: overrides.id ?? CONVERSATION,
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z",
    },
    items: overrides.items ?? Array.from({ length }, (_, i) => item((page - 1) * size + i)),
    page,
    page_size: size,
    total,
    has_more: overrides.has_more ?? page * size < total,
  };
}
