/**
 * LIST-11 over recorded exchanges: a stream the suite itself closed before it finished has an
 * unknown outcome and counts for nothing; an exchange that was late or never listed fails.
 */

import { expect, test } from "vitest";
import type { SpecMessagePage } from "../../../schemas/index.ts";
import { InconclusiveError } from "../../http/errors.ts";
import type { HttpResult, StreamResult, Transcript } from "../../http/types.ts";
import type { RecordedExchange } from "./recorded.ts";
import { expectListedAtOnce } from "./listing.ts";

const TRANSCRIPT: Transcript = { request: { method: "GET", url: "http://127.0.0.1:1/v1", headers: {} }, durationMs: 1 };
const http: HttpResult = { status: 200, headers: {}, text: "", json: undefined, transcript: TRANSCRIPT };

function page(total: number): SpecMessagePage {
  return {
    conversation: {
      id: "0190a000-0000-7000-8000-00000000000a",
      created_at: "2026-11-25T10:00:00Z",
      updated_at: "2026-11-25T10:00:00Z",
    },
    items: [],
    page: 1,
    page_size: 20,
    total,
    has_more: false,
  };
}

/** A stream the suite's first-event timeout closed: no event, no terminal. */
const abandonedStream: StreamResult = {
  status: 200,
  headers: { "content-type": "text/event-stream" },
  events: [],
  terminal: undefined,
  ended: false,
  chunks: 0,
  problems: [{ kind: "first-event-timeout", detail: "no event within 10000 ms of the request" }],
  http: undefined,
  transcript: TRANSCRIPT,
};

function exchange(totalBefore: number, totalAfter: number, extras: Partial<RecordedExchange> = {}): RecordedExchange {
  return {
    kind: "plain",
    message: "m",
    http,
    conversationId: undefined,
    totalBefore,
    attempts: 1,
    listingAfter: {
      page: page(totalAfter),
      http,
      extraReads: totalAfter > totalBefore ? 0 : 5,
      settled: totalAfter > totalBefore,
    },
    ...extras,
  };
}

const target = { settleMs: 3000 };

test("an exchange the suite abandoned (its first-event timeout closed the stream) is not counted as not listed", () => {
  const exchanges = [
    exchange(0, 2),
    exchange(2, 2, { kind: "stream", http: undefined, stream: abandonedStream }),
    exchange(2, 4),
  ];
  expect(() => expectListedAtOnce(target, "the small conversation", exchanges)).not.toThrow();
});

test("an exchange that finished and was never listed still fails, and the abandoned ones are said to be left out", () => {
  const exchanges = [
    exchange(0, 2),
    exchange(2, 2, { kind: "stream", http: undefined, stream: abandonedStream }),
    exchange(2, 2),
  ];
  expect(() => expectListedAtOnce(target, "the small conversation", exchanges)).toThrow(
    /^1 of 2 exchanges of the small conversation were not listed .*1 stream\(s\) the suite closed before they finished are not counted/,
  );
});

test("when every exchange was abandoned, LIST-11 is inconclusive, naming the flag", () => {
  const exchanges = [exchange(0, 0, { kind: "stream", http: undefined, stream: abandonedStream })];
  expect(() => expectListedAtOnce(target, "the small conversation", exchanges)).toThrow(InconclusiveError);
  expect(() => expectListedAtOnce(target, "the small conversation", exchanges)).toThrow(/--first-event-timeout/);
});
