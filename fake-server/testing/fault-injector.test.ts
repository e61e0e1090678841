import { request } from "undici";
import { expect, onTestFinished, test } from "vitest";
import { createFakeServer, type FakeServer } from "../index.ts";
import { faultInjector } from "./index.ts";

const KEY = "sk-faults-1";
const AUTH = { authorization: `Bearer ${KEY}` };
const CREATE_HEADERS = { ...AUTH, "content-type": "application/json" };

async function fake(): Promise<FakeServer> {
  const server = await createFakeServer({ port: 0, keys: [`${KEY}=helper`], deltaDelayMs: 0 });
  onTestFinished(() => server.close());
  return server;
}

const createUrl = (server: FakeServer) => `${server.url}/v1/agents/helper/responses`;
const body = (message: string) => JSON.stringify({ message });

/** Statuses the fake logged for requests whose path ends with `suffix`, oldest first. */
async function logged(server: FakeServer, suffix: string): Promise<number[]> {
  const response = await fetch(`${server.url}/__fake/requests`);
  const { requests } = (await response.json()) as { requests: { path: string; status: number }[] };
  return requests.filter((r) => r.path.endsWith(suffix)).map((r) => r.status);
}

// Each way of giving fetch its headers, with the status a clean send gets: the fault is added and
// the caller's own headers stay (without the Bearer key the fake would answer 401 before it
// reads the fault).
type FetchCall = (server: FakeServer) => Parameters<typeof fetch>;
const create =
  (headers: (own: Record<string, string>) => RequestInit["headers"]): FetchCall =>
  (s) => [
    createUrl(s),
    { method: "POST", headers: headers({ ...CREATE_HEADERS, "idempotency-key": "k-1" }), body: body("hi") },
  ];
const FETCH_CALLS: [string, FetchCall, number][] = [
  ["a record", create((own) => own), 200],
  ["a Headers object", create((own) => new Headers(own)), 200],
  ["pairs", create((own) => Object.entries(own)), 200],
  ["a Request", (s) => [new Request(...create((own) => own)(s))], 200],
  [
    "a URL, on a GET",
    (s) => [new URL(`${s.url}/v1/agents/helper/conversations/${crypto.randomUUID()}/messages`), { headers: AUTH }],
    404,
  ],
];

test.for(FETCH_CALLS)(
  "fetch, headers given as %s: the fault rides on the next matching request only",
  async ([, call, clean]) => {
    const server = await fake();
    const faults = faultInjector();
    faults.next("", "status=503,retry-after=1");
    expect(faults.pending).toBe(1);
    const first = await faults.fetch(...call(server));
    expect(first.status).toBe(503);
    expect(first.headers.get("retry-after")).toBe("1");
    expect(faults.pending).toBe(0);
    expect((await faults.fetch(...call(server))).status).toBe(clean);
  },
);

test("fetch: a fault waits for its own path, query aside, and faults for one path go out in order", async () => {
  const server = await fake();
  const faults = faultInjector();
  faults.next("/responses/stream", "status=500");
  faults.next("/responses", "status=429,retry-after=2");
  faults.next("/responses", "status=503");
  const create = (key: string) =>
    faults.fetch(`${createUrl(server)}?trace=1`, {
      method: "POST",
      headers: { ...CREATE_HEADERS, "idempotency-key": key },
      body: body("hi"),
    });
  expect((await create("a")).status).toBe(429);
  expect((await create("a")).status).toBe(503);
  expect((await create("a")).status).toBe(200);
  expect(faults.pending).toBe(1);
  expect(await logged(server, "/responses")).toEqual([429, 503, 200]);
});

test("fetch: drop-after cuts the stream, and its retry under the same key gets the whole answer", async () => {
  const server = await fake();
  const faults = faultInjector();
  faults.next("/responses/stream", "drop-after=1");
  const stream = () =>
    faults.fetch(`${createUrl(server)}/stream`, {
      method: "POST",
      headers: { ...CREATE_HEADERS, accept: "text/event-stream", "idempotency-key": "drop-1" },
      body: body("How do I export my data?"),
    });
  const cut = await stream();
  expect(cut.status).toBe(200);
  await expect(cut.text()).rejects.toThrow();
  const retried = await (await stream()).text();
  expect(retried).toContain("event: response.completed");
  expect(server.clientViolations()).toEqual([]);
});

test("fetch: sends through the fetch it was given", async () => {
  const seen: (string | null)[] = [];
  const faults = faultInjector({
    fetch: async (input, init) => {
      seen.push(new Headers(init?.headers).get("x-fake-fault"));
      return new Response(null, { status: 204 });
    },
  });
  faults.next("/x", "status=500");
  await faults.fetch("http://example.invalid/a/x");
  await faults.fetch("http://example.invalid/a/x");
  expect(seen).toEqual(["status=500", null]);
});

// undici's dispatch options carry headers as a record, as flat pairs, or as an iterable.
const UNDICI_HEADER_FORMS: [string, (key: string) => NonNullable<Parameters<typeof request>[1]>["headers"]][] = [
  ["a record", (key) => ({ ...CREATE_HEADERS, "idempotency-key": key })],
  ["flat pairs", (key) => [...Object.entries(CREATE_HEADERS).flat(), "idempotency-key", key]],
  ["a Map", (key) => new Map([...Object.entries(CREATE_HEADERS), ["idempotency-key", key]])],
];

test.for(UNDICI_HEADER_FORMS)(
  "undici dispatcher, headers given as %s: the fault rides on the next matching request only",
  async ([, headers]) => {
    const server = await fake();
    const faults = faultInjector();
    faults.next("/responses", "status=429,retry-after=3");
    const send = () =>
      request(createUrl(server), {
        method: "POST",
        headers: headers("u-1"),
        body: body("hi"),
        dispatcher: faults.dispatcher,
      });
    const first = await send();
    expect(first.statusCode).toBe(429);
    expect(first.headers["retry-after"]).toBe("3");
    await first.body.dump();
    expect(faults.pending).toBe(0);
    const second = await send();
    expect(second.statusCode).toBe(200);
    await second.body.dump();
    expect(await logged(server, "/responses")).toEqual([429, 200]);
  },
);

test("undici dispatcher and fetch share one queue", async () => {
  const server = await fake();
  const faults = faultInjector();
  faults.next("/responses", "status=500");
  faults.next("/responses", "status=503");
  const viaUndici = await request(createUrl(server), {
    method: "POST",
    headers: { ...CREATE_HEADERS, "idempotency-key": "s-1" },
    body: body("hi"),
    dispatcher: faults.dispatcher,
  });
  await viaUndici.body.dump();
  const viaFetch = await faults.fetch(createUrl(server), {
    method: "POST",
    headers: { ...CREATE_HEADERS, "idempotency-key": "s-1" },
    body: body("hi"),
  });
  expect([viaUndici.statusCode, viaFetch.status]).toEqual([500, 503]);
  expect(faults.pending).toBe(0);
});
