/**
 * Reading HAR as recorders write it: bodies in text or base64, HTTP/2 pseudo-headers, and the
 * difference between an empty body and one the recorder left out, which must stay unknown so
 * the judge never takes it for an empty answer. Written HAR keeps that difference.
 */
import { expect, test } from "vitest";
import { readHar, writeHar } from "./har.ts";

const URL = "https://service.example/v1/agents/a";

function entry(request: object, response: object, at = "2026-11-24T10:00:00.000Z") {
  return {
    startedDateTime: at,
    time: 12,
    request: { method: "POST", url: `${URL}/responses`, headers: [], ...request },
    response: { status: 200, headers: [], ...response },
  };
}

const har = (...entries: object[]) => JSON.stringify({ log: { version: "1.2", entries } });

test("bodies as text or base64; pseudo-headers dropped; repeated headers joined", () => {
  const [exchange] = readHar(
    har(
      entry(
        {
          headers: [
            { name: ":authority", value: "service.example" },
            { name: "Accept", value: "a" },
            { name: "accept", value: "b" },
          ],
          postData: { text: Buffer.from('{"message":"hi"}').toString("base64"), encoding: "base64" },
        },
        { content: { size: 2, text: "{}" } },
      ),
    ),
    "t.har",
  );
  expect(exchange?.request.headers).toEqual({ accept: "a, b" });
  expect(exchange?.request.body).toBe('{"message":"hi"}');
  expect(exchange?.response?.body).toBe("{}");
});

test("a body the recorder left out is unknown; size 0, a 204 or a request bodySize 0 is empty", () => {
  const exchanges = readHar(
    har(
      entry({ postData: { text: "{}" } }, { content: { size: 120, mimeType: "application/json" } }),
      entry({ postData: { text: "{}" } }, { content: { size: -1 } }),
      entry({ postData: { text: "{}" } }, { content: { size: 0 } }),
      entry({ method: "DELETE", url: `${URL}/conversations/x`, bodySize: 0 }, { status: 204, content: { size: 31 } }),
      entry({ bodySize: -1 }, { content: { size: 2, text: "{}" } }),
      entry({ method: "GET", url: `${URL}/conversations/x/messages` }, { content: { size: 2, text: "{}" } }),
    ),
    "t.har",
  );
  expect(exchanges.map((e) => e.response?.body)).toEqual([undefined, undefined, "", "", "{}", "{}"]);
  expect(exchanges.map((e) => e.request.body)).toEqual(["{}", "{}", "{}", "", undefined, undefined]);
});

test("written HAR keeps an unknown body unknown, and an empty one empty", () => {
  const exchanges = readHar(
    har(
      entry({ bodySize: -1 }, { content: { size: 40 } }),
      entry({ postData: { text: "" } }, { content: { size: 0, text: "" } }),
    ),
    "t.har",
  );
  const again = readHar(JSON.stringify(writeHar(exchanges)), "again.har");
  expect(again.map((e) => [e.request.body, e.response?.body])).toEqual([
    [undefined, undefined],
    ["", ""],
  ]);
});

test("timings: wait is the time to the response head, receive the rest (a stream's events); without a head, all of it is waiting", () => {
  const exchange = (waitMs: number | undefined, answered = true) => ({
    sequence: 0,
    startedAt: Date.parse("2026-11-24T10:00:00.000Z"),
    request: { method: "POST", url: `${URL}/responses/stream`, headers: {}, body: '{"message":"hi"}' },
    response: answered
      ? {
          status: 200,
          headers: { "content-type": "text/event-stream" },
          body: "event: response.created\ndata: {}\n\n",
          complete: true,
          chunks: undefined,
        }
      : undefined,
    failure: answered ? undefined : "the upstream could not be reached",
    durationMs: 5_000,
    ...(waitMs === undefined ? {} : { waitMs }),
  });
  const timings = (e: ReturnType<typeof exchange>) =>
    (writeHar([e]) as { log: { entries: { time: number; timings: object }[] } }).log.entries[0];
  expect(timings(exchange(12))).toMatchObject({ time: 5_000, timings: { send: 0, wait: 12, receive: 4_988 } });
  expect(timings(exchange(undefined, false))).toMatchObject({
    time: 5_000,
    timings: { send: 0, wait: 5_000, receive: 0 },
  });
  // Read back: the time to the head survives the file.
  expect(readHar(JSON.stringify(writeHar([exchange(12)])), "t.har")[0]?.waitMs).toBe(12);
});

test("an exchange cut before it ended is written with what arrived and `_incomplete: true`, and read back as incomplete", () => {
  const cut = {
    sequence: 0,
    startedAt: Date.parse("2026-11-24T10:00:00.000Z"),
    request: { method: "POST", url: `${URL}/responses/stream`, headers: {}, body: '{"message":"hi"}' },
    response: {
      status: 200,
      headers: { "content-type": "text/event-stream" },
      body: "event: response.created\ndata: {}\n\n",
      complete: false,
      chunks: undefined,
    },
    failure: "the proxy stopped before the exchange ended",
    incomplete: true as const,
    durationMs: 3_000,
    waitMs: 10,
  };
  const [entry] = (
    writeHar([
      cut,
      { ...cut, incomplete: undefined, failure: undefined, response: { ...cut.response, complete: true } },
    ]) as { log: { entries: Record<string, unknown>[] } }
  ).log.entries;
  expect(entry).toMatchObject({
    _incomplete: true,
    response: { _error: "the proxy stopped before the exchange ended", content: { text: cut.response.body } },
  });
  const [again, whole] = readHar(
    JSON.stringify(
      writeHar([
        cut,
        { ...cut, incomplete: undefined, failure: undefined, response: { ...cut.response, complete: true } },
      ]),
    ),
    "t.har",
  );
  expect([again?.incomplete, again?.response?.complete, again?.response?.body]).toEqual([
    true,
    false,
    cut.response.body,
  ]);
  expect(whole?.incomplete).toBeUndefined();
});
