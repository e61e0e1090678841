import { randomUUID } from "node:crypto";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createFakeServer, type FakeServer } from "../../fake-server/index.ts";
import { fakeDocument } from "./fake-document.ts";
import type { JsonObject } from "./error-responses.ts";
import { generatedSchemaValidator } from "../../test-support/json-schema-validator.ts";
import { PAGE_DEFAULT, PAGE_SIZE_DEFAULT } from "./parameters.ts";

// fake.json describes the reference fake: every answer the fake gives here must be a
// documented status of its operation, with a body that validates against the emitted schema.

const doc = fakeDocument();
const check = generatedSchemaValidator();
const KEY = "sk-fake-a";
const AGENT = "agent-a";

type Operation = "create" | "stream" | "list" | "delete";
const OPERATIONS: Record<Operation, [path: string, method: string]> = {
  create: ["/v1/agents/{agent_id}/responses", "post"],
  stream: ["/v1/agents/{agent_id}/responses/stream", "post"],
  list: ["/v1/agents/{agent_id}/conversations/{conversation_id}/messages", "get"],
  delete: ["/v1/agents/{agent_id}/conversations/{conversation_id}", "delete"],
};

function documented(operation: Operation, status: number): JsonObject {
  const [path, method] = OPERATIONS[operation];
  const responses = ((doc.paths as JsonObject)[path] as JsonObject)[method] as {
    responses: Record<string, JsonObject>;
  };
  const response = responses.responses[String(status)];
  if (!response) throw new Error(`${method.toUpperCase()} ${path} does not document status ${status}`);
  return response;
}

let fake: FakeServer | undefined;
beforeAll(async () => {
  fake = await createFakeServer({ deltaDelayMs: 0 });
});
afterAll(async () => {
  await fake?.close();
});

interface Call {
  method?: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  key?: string | null;
  headers?: Record<string, string>;
  body?: string;
}

async function call({ method = "GET", path, key = KEY, headers = {}, body }: Call) {
  if (!fake) throw new Error("the fake did not start");
  const response = await request(`${fake.url}${path}`, {
    method,
    headers: { ...(key === null ? {} : { authorization: `Bearer ${key}` }), ...headers },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text };
}

const createCall = (body: unknown, headers: Record<string, string> = {}, stream = false): Call => ({
  method: "POST",
  path: `/v1/agents/${AGENT}/responses${stream ? "/stream" : ""}`,
  headers: { "content-type": "application/json", "idempotency-key": randomUUID(), ...headers },
  body: JSON.stringify(body),
});

async function createConversation(): Promise<string> {
  const answer = await call(createCall({ message: "what is the refund policy?" }));
  expect(answer.status, answer.text).toBe(200);
  return (JSON.parse(answer.text) as { conversation_id: string }).conversation_id;
}

function sseEvents(text: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(text);
  return events;
}

describe("successful answers", () => {
  test("create: a documented status and a ResponseResult, for a body that is a ResponseRequest", async () => {
    const body = { message: "what is the refund policy?", external_reference: "order-7", metadata: { channel: "web" } };
    expect(check("ResponseRequest", body).valid).toBe(true);
    const answer = await call(createCall(body));
    const response = documented("create", answer.status);
    expect(response.content).toHaveProperty(
      ["application/json", "schema", "$ref"],
      "#/components/schemas/ResponseResult",
    );
    const result = check("ResponseResult", JSON.parse(answer.text));
    expect(result.valid, result.errors).toBe(true);
  });

  test("stream: text/event-stream whose every data validates as a StreamEvent named by its event line", async () => {
    const answer = await call(
      createCall({ message: "how do I reset my password?" }, { accept: "text/event-stream" }, true),
    );
    documented("stream", answer.status);
    expect(answer.headers["content-type"]).toMatch(/^text\/event-stream/);
    const events = sseEvents(answer.text);
    expect(events.map((e) => e.event).at(0)).toBe("response.created");
    expect(events.map((e) => e.event).at(-1)).toBe("response.completed");
    for (const event of events) {
      const data = JSON.parse(event.data) as { type?: unknown };
      const result = check("StreamEvent", data);
      expect(result.valid, `${event.event}: ${result.errors}`).toBe(true);
      expect(data.type).toBe(event.event);
    }
  });

  test("stream: an injected error event validates as an ErrorEvent with the documented code", async () => {
    const answer = await call(
      createCall(
        { message: "tell me about shipping" },
        { accept: "text/event-stream", "x-fake-fault": "error-after=1" },
        true,
      ),
    );
    const last = sseEvents(answer.text).at(-1);
    expect(last?.event).toBe("error");
    const data: unknown = JSON.parse(last?.data ?? "null");
    expect(check("ErrorEvent", data).valid).toBe(true);
    expect(data).toMatchObject({ code: "agent_failed" });
    expect(String(documented("stream", answer.status).description)).toContain("`agent_failed`");
  });

  test("list: a documented status and a MessagePage using the documented defaults", async () => {
    const id = await createConversation();
    const answer = await call({ path: `/v1/agents/${AGENT}/conversations/${id}/messages` });
    documented("list", answer.status);
    const page: unknown = JSON.parse(answer.text);
    const result = check("MessagePage", page);
    expect(result.valid, result.errors).toBe(true);
    expect(page).toMatchObject({ page: PAGE_DEFAULT, page_size: PAGE_SIZE_DEFAULT });
  });

  test("delete: 204 with no body, as documented", async () => {
    const id = await createConversation();
    const answer = await call({ method: "DELETE", path: `/v1/agents/${AGENT}/conversations/${id}` });
    expect(answer.status).toBe(204);
    expect(documented("delete", 204).content).toBeUndefined();
    expect(answer.text).toBe("");
  });
});

interface ErrorCase {
  name: string;
  operation: Operation;
  /** Builds the request; may make earlier requests first (e.g. to use a key once). */
  request: () => Promise<Call> | Call;
  status: number;
  code: string;
  header?: string;
}

const unknownId = "7d444840-9dc0-11d1-b245-5ffdce74fad2";
const ERROR_CASES: ErrorCase[] = [
  {
    name: "no key",
    operation: "list",
    request: () => ({ path: `/v1/agents/${AGENT}/conversations/${unknownId}/messages`, key: null }),
    status: 401,
    code: "unauthorized",
    header: "www-authenticate",
  },
  {
    name: "body not JSON",
    operation: "create",
    request: () => ({ ...createCall(null), body: "{not json" }),
    status: 400,
    code: "invalid_json",
  },
  {
    name: "no Idempotency-Key",
    operation: "create",
    request: () => ({ ...createCall({ message: "hi" }), headers: { "content-type": "application/json" } }),
    status: 400,
    code: "idempotency_key_missing",
  },
  {
    name: "unknown conversation continued",
    operation: "create",
    request: () => createCall({ message: "hi", conversation_id: unknownId }),
    status: 404,
    code: "conversation_not_found",
  },
  {
    name: "agent not granted to the key",
    operation: "create",
    request: () => ({ ...createCall({ message: "hi" }), path: "/v1/agents/agent-z/responses" }),
    status: 404,
    code: "not_found",
  },
  {
    name: "text/plain body",
    operation: "create",
    request: () => createCall({ message: "hi" }, { "content-type": "text/plain" }),
    status: 415,
    code: "unsupported_media_type",
  },
  {
    name: "body over 1 MiB",
    operation: "create",
    request: () => ({ ...createCall(null), body: JSON.stringify({ message: "x".repeat(1024 * 1024) }) }),
    status: 413,
    code: "payload_too_large",
  },
  {
    name: "same key, different payload",
    operation: "create",
    request: async () => {
      const first = createCall({ message: "first payload" });
      expect((await call(first)).status).toBe(200);
      return { ...first, body: JSON.stringify({ message: "second payload" }) };
    },
    status: 409,
    code: "idempotency_key_reused",
  },
  {
    name: "injected 429",
    operation: "create",
    request: () => createCall({ message: "hi" }, { "x-fake-fault": "status=429" }),
    status: 429,
    code: "rate_limited",
    header: "retry-after",
  },
  {
    name: "injected 503 on the stream",
    operation: "stream",
    request: () => createCall({ message: "hi" }, { "x-fake-fault": "status=503" }, true),
    status: 503,
    code: "service_unavailable",
    header: "retry-after",
  },
  {
    name: "page 0",
    operation: "list",
    request: () => ({ path: `/v1/agents/${AGENT}/conversations/${unknownId}/messages?page=0` }),
    status: 400,
    code: "invalid_pagination",
  },
  {
    name: "unknown conversation listed",
    operation: "list",
    request: () => ({ path: `/v1/agents/${AGENT}/conversations/${unknownId}/messages` }),
    status: 404,
    code: "conversation_not_found",
  },
  {
    name: "unknown conversation deleted",
    operation: "delete",
    request: () => ({ method: "DELETE", path: `/v1/agents/${AGENT}/conversations/${unknownId}` }),
    status: 404,
    code: "conversation_not_found",
  },
  {
    name: "malformed X-Fake-Fault",
    operation: "delete",
    request: () => ({
      method: "DELETE",
      path: `/v1/agents/${AGENT}/conversations/${unknownId}`,
      headers: { "x-fake-fault": "nonsense" },
    }),
    status: 400,
    code: "invalid_request",
  },
  {
    name: "PUT on the create path",
    operation: "create",
    request: () => ({ ...createCall({ message: "hi" }), method: "PUT" }),
    status: 405,
    code: "method_not_allowed",
    header: "allow",
  },
];

test.each(ERROR_CASES)(
  "$name: $status $code is documented, with an ErrorBody",
  async ({ operation, request: build, status, code, header }) => {
    const answer = await call(await build());
    expect(answer.status, answer.text).toBe(status);
    const response = documented(operation, status);
    expect(String(response.description)).toContain(`\`${code}\``);
    const body: unknown = JSON.parse(answer.text);
    const result = check("ErrorBody", body);
    expect(result.valid, result.errors).toBe(true);
    expect(body).toMatchObject({ error: { code } });
    if (header) {
      expect(answer.headers[header], `${header} header`).toBeDefined();
      expect(Object.keys(response.headers ?? {}).map((h) => h.toLowerCase())).toContain(header);
    }
  },
);
