/**
 * fast-check arbitraries of hostile HTTP requests to the fake: mostly well-aimed (a real
 * route, a valid key) so that they reach deep into the handlers, each with something wrong
 * or odd in its method, path, headers or body. Everything here is sendable by undici: header
 * values are latin1 without CR/LF/NUL, paths are bytes 0x21-0xff (so raw non-UTF-8 bytes do
 * reach the server).
 */

import fc from "fast-check";

export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

/** Conversation ids the test seeds, so that paths can name real conversations. */
export interface Known {
  conversationIds: readonly string[];
}

// sk-fake-a grants both agents; sk-fake-b only agent-a (on another channel).
const KEYS = ["sk-fake-a", "sk-fake-a", "sk-fake-a", "sk-fake-b"];
const AGENTS = ["agent-a", "agent-b"];

/** A header value undici will send: tab, printable ASCII and latin1 bytes. */
const headerChar = fc
  .oneof(
    { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.constant(0x09) },
    { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
  )
  .map((code) => String.fromCharCode(code));
const headerText = (maxLength: number) => fc.string({ unit: headerChar, maxLength });
/** undici refuses header values with leading or trailing whitespace; the fake never sees them. */
const headerValue = (maxLength: number) => headerText(maxLength).map((value) => value.trim());

/** A path segment: real names, prototype keys, traversal, malformed escapes, raw bytes. */
function segment(real: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 20, arbitrary: fc.constantFrom(...real) },
    { weight: 1, arbitrary: fc.constantFrom("__proto__", "constructor", "prototype", "hasOwnProperty", "toString") },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "..",
        ".",
        "%2e%2e",
        "%2F",
        "%00",
        "%",
        "%zz",
        "%E0%A4%A",
        "%ff%fe",
        "%C0%AF",
        "a%20b",
      ),
    },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9._~%!$&'()*+,;=:@-]{0,40}$/) },
    // Not valid in an HTTP/1.1 request line: Node's parser refuses these before the fake.
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ minLength: 1, maxLength: 12 })
        .map((bytes) => Buffer.from(bytes.map((b) => 0x80 | b)).toString("latin1")),
    },
    { weight: 1, arbitrary: fc.integer({ min: 300, max: 5_000 }).map((n) => "a".repeat(n)) },
  );
}

function query(): fc.Arbitrary<string> {
  const value = fc.oneof(
    fc.constantFrom(
      "1",
      "2",
      "50",
      "100",
      "101",
      "0",
      "-1",
      "1.5",
      "1e2",
      "",
      "abc",
      "9007199254740993",
      "0x10",
      "%201",
      "%31",
    ),
    fc.nat().map(String),
  );
  const pair = fc.oneof(
    fc.tuple(fc.constantFrom("page", "page_size"), value).map(([name, v]) => `${name}=${v}`),
    fc.constantFrom(
      "__proto__[page]=1",
      "constructor[prototype][page_size]=1",
      "page[]=1",
      "page_size[a]=2",
      "page",
      "&&",
      "=1",
    ),
  );
  return fc.array(pair, { maxLength: 4 }).map((pairs) => (pairs.length === 0 ? "" : `?${pairs.join("&")}`));
}

/** A route and, most of the time, the method it serves; otherwise any method. */
function target(known: Known): fc.Arbitrary<{ method: string; path: string }> {
  const agent = segment(AGENTS);
  const conversation = segment(known.conversationIds);
  const otherMethod = fc.constantFrom(
    "POST",
    "GET",
    "DELETE",
    "PUT",
    "PATCH",
    "HEAD",
    "OPTIONS",
    "TRACE",
    "PROPFIND",
    "M-SEARCH",
  );
  const on = (method: string, path: fc.Arbitrary<string>) =>
    fc
      .tuple(fc.oneof({ weight: 6, arbitrary: fc.constant(method) }, { weight: 1, arbitrary: otherMethod }), path)
      .map(([m, p]) => ({ method: m, path: p }));
  return fc.oneof(
    {
      weight: 5,
      arbitrary: on(
        "POST",
        agent.map((a) => `/v1/agents/${a}/responses`),
      ),
    },
    {
      weight: 4,
      arbitrary: on(
        "POST",
        agent.map((a) => `/v1/agents/${a}/responses/stream`),
      ),
    },
    {
      weight: 4,
      arbitrary: on(
        "GET",
        fc.tuple(agent, conversation, query()).map(([a, c, q]) => `/v1/agents/${a}/conversations/${c}/messages${q}`),
      ),
    },
    {
      weight: 2,
      arbitrary: on(
        "DELETE",
        fc.tuple(agent, conversation).map(([a, c]) => `/v1/agents/${a}/conversations/${c}`),
      ),
    },
    {
      weight: 1,
      arbitrary: on(
        "GET",
        fc.constantFrom(
          "/",
          "/v1",
          "/v1/",
          "/v1/agents",
          "/v1/agents/",
          "/v2/agents/agent-a/responses",
          "/v1//agents/agent-a/responses",
          "/v1/agents/agent-a/responses/",
          "/v1/agents/agent-a/responses?x=1",
          "/V1/AGENTS/agent-a/responses",
          "/V1/agents/agent-a/conversations/x/messages",
          "/__fake/health",
          "/__fake/requests?limit=0",
          "/__fake/requests?limit=abc",
          "/__fake/nope",
          "/%2e%2e/%2e%2e/etc/passwd",
        ),
      ),
    },
    {
      weight: 1,
      arbitrary: on(
        "GET",
        segment(["v1"]).map((s) => `/${s}`),
      ),
    },
  );
}

function authorization(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 16, arbitrary: fc.constantFrom(...KEYS).map((key) => `Bearer ${key}`) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        undefined,
        "",
        "Bearer",
        "Bearer ",
        "bearer sk-fake-a",
        "Basic c2stZmFrZS1hOg==",
        "Bearer sk-fake-a sk-fake-b",
        "Bearer sk-fake-",
        "Bearer __proto__",
        "Bearer constructor",
        "Token sk-fake-a",
      ),
    },
    { weight: 1, arbitrary: headerValue(300).map((value) => `Bearer ${value}`) },
  );
}

function contentType(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant("application/json") },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        undefined,
        "APPLICATION/JSON",
        "application/json; charset=latin1",
        "application/json;charset=utf-16",
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonx",
        "json",
        "*/*",
        "",
      ),
    },
    { weight: 1, arbitrary: headerValue(80) },
  );
}

function idempotencyKey(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.uuid() },
    // A small pool, so that keys repeat: replays and conflicts.
    { weight: 3, arbitrary: fc.constantFrom("k1", "k2", "k3") },
    { weight: 1, arbitrary: fc.constantFrom(undefined, "", "\t", "__proto__", "constructor", "toString", "k1, k2") },
    { weight: 1, arbitrary: fc.integer({ min: 250, max: 2_000 }).map((n) => "k".repeat(n)) },
    { weight: 1, arbitrary: headerValue(60) },
  );
}

/** JSON values of the wrong type for a field: numbers, arrays, objects, booleans, null. */
const wrongType = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);

const messageValue = fc.oneof(
  { weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: 80 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constant("") },
  { weight: 1, arbitrary: fc.integer({ min: 31_000, max: 40_000 }).map((n) => "m".repeat(n)) },
  { weight: 2, arbitrary: wrongType },
);

function bodyObject(known: Known): fc.Arbitrary<Record<string, unknown>> {
  const metadata = fc.oneof(
    fc.dictionary(fc.string({ maxLength: 70 }), fc.string({ maxLength: 600 }), { maxKeys: 20 }),
    fc.dictionary(
      fc.constantFrom("__proto__", "constructor", "prototype", "toString", "valueOf"),
      fc.string({ maxLength: 10 }),
      { maxKeys: 3 },
    ),
    wrongType,
  );
  return fc.record(
    {
      message: messageValue,
      conversation_id: fc.oneof(
        fc.constantFrom(...known.conversationIds),
        fc.uuid(),
        fc.constant(null),
        fc.string({ maxLength: 40 }),
        wrongType,
      ),
      external_reference: fc.oneof(fc.string({ maxLength: 300 }), fc.constant(null), wrongType),
      metadata,
      extra: fc.jsonValue({ maxDepth: 3 }),
    },
    { requiredKeys: [] },
  );
}

const encoder = new TextEncoder();

/** Raw JSON text with own `__proto__` / `constructor` keys (JSON.stringify cannot write them). */
const pollutingBody = fc
  .tuple(fc.constantFrom("__proto__", "constructor", "prototype"), fc.string({ minLength: 1, maxLength: 20 }))
  .map(
    ([key, message]) =>
      `{"message":${JSON.stringify(message)},"${key}":{"polluted":"yes","prototype":{"polluted":"yes"}},` +
      `"metadata":{"${key}":"x","polluted":"yes"}}`,
  );

/** Arrays nested far deeper than any real request, inside a field the schema ignores. */
const deepBody = fc
  .tuple(fc.integer({ min: 1_000, max: 200_000 }), fc.constantFrom("[", '{"a":'))
  .map(([depth, open]) => {
    const close = open === "[" ? "]" : "}";
    const inner = open === "[" ? "" : "1";
    return `{"message":"deep","extra":${open.repeat(depth)}${inner}${close.repeat(depth)}}`;
  });

/** A body the fake accepts, so that requests also get through to the stores. */
function validBody(known: Known): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      message: fc.string({ minLength: 1, maxLength: 80 }),
      conversation_id: fc.oneof(fc.constantFrom(...known.conversationIds), fc.constant(null)),
      external_reference: fc.oneof(fc.string({ maxLength: 40 }), fc.constant(null)),
      metadata: fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), fc.string({ maxLength: 20 }), { maxKeys: 4 }),
    },
    { requiredKeys: ["message"] },
  );
}

function body(known: Known): fc.Arbitrary<Buffer | undefined> {
  const text = (arbitrary: fc.Arbitrary<string>) => arbitrary.map((value) => Buffer.from(value, "utf8"));
  return fc.oneof(
    { weight: 6, arbitrary: text(validBody(known).map((value) => JSON.stringify(value))) },
    { weight: 8, arbitrary: text(bodyObject(known).map((value) => JSON.stringify(value))) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: text(pollutingBody) },
    { weight: 1, arbitrary: text(deepBody) },
    // Malformed JSON: cut short, trailing garbage, or not JSON at all.
    {
      weight: 1,
      arbitrary: text(
        fc.tuple(bodyObject(known), fc.nat()).map(([value, cut]) => {
          const json = JSON.stringify(value);
          return json.slice(0, cut % (json.length + 1));
        }),
      ),
    },
    {
      weight: 1,
      arbitrary: text(
        fc.constantFrom(
          "",
          "null",
          "[]",
          '"x"',
          "1",
          "true",
          "{",
          "}",
          "{}}",
          '{"message":"a"}x',
          "\u0000",
          '{"message":"\\ud800"}',
          '{"message":"a","message":"b"}',
        ),
      ),
    },
    // Invalid UTF-8: raw bytes inside a JSON string, or nothing but bytes.
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ minLength: 1, maxLength: 16 })
        .map((bytes) =>
          Buffer.concat([
            encoder.encode('{"message":"'),
            Buffer.from(bytes.map((b) => 0x80 | b)),
            encoder.encode('"}'),
          ]),
        ),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)) },
    // Past the body cap (1 MiB): one long string.
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1_048_000, max: 1_100_000 })
        .map((n) => Buffer.from(`{"message":"${"x".repeat(n)}"}`)),
    },
  );
}

export function hostileRequest(known: Known): fc.Arbitrary<HostileRequest> {
  return fc
    .record({
      target: target(known),
      authorization: authorization(),
      contentType: contentType(),
      idempotencyKey: idempotencyKey(),
      accept: fc.constantFrom(undefined, "text/event-stream", "application/json", "*/*", "text/html"),
      // Fault injection is off in the fuzzed fake: the header itself must be a 400.
      fault: fc.oneof(
        { weight: 12, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom("status=500", "first-event-delay=1") },
      ),
      extraHeader: fc.option(
        fc.tuple(
          fc.constantFrom("x-forwarded-for", "cookie", "x-http-method-override", "__proto__", "constructor"),
          headerValue(40),
        ),
        { nil: undefined },
      ),
      body: body(known),
    })
    .map(
      ({ target: { method, path }, authorization, contentType, idempotencyKey, accept, fault, extraHeader, body }) => {
        const headers: Record<string, string> = Object.create(null);
        if (authorization !== undefined) headers["authorization"] = authorization;
        if (contentType !== undefined) headers["content-type"] = contentType;
        if (idempotencyKey !== undefined) headers["idempotency-key"] = idempotencyKey;
        if (accept !== undefined) headers["accept"] = accept;
        if (fault !== undefined) headers["x-fake-fault"] = fault;
        if (extraHeader !== undefined) headers[extraHeader[0]] = extraHeader[1];
        const withBody = method !== "GET" && method !== "HEAD";
        const request: HostileRequest = { method, path, headers: { ...headers }, body: withBody ? body : undefined };
        // A failing run is printed with this: a 1 MiB body is shown by its size and start only.
        Object.defineProperty(request, fc.toStringMethod, { value: () => describeRequest(request) });
        return request;
      },
    );
}

export function describeRequest(request: HostileRequest): string {
  const clip = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}… (${text.length} characters)` : text);
  const body =
    request.body === undefined
      ? "no body"
      : `${request.body.length} bytes: ${JSON.stringify(clip(request.body.toString("latin1")))}`;
  return `${request.method} ${clip(request.path)} ${JSON.stringify(Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, clip(v)])))} ${body}`;
}
