import { expect, test } from "vitest";
import { Redactor } from "./redact.ts";
import { buildTranscript, capText, formatTranscript, TRANSCRIPT_BODY_CHARS } from "./transcript.ts";

const KEY = "sk-transcript-123456";

test("a transcript is redacted and its bodies capped", () => {
  const t = buildTranscript(
    {
      method: "POST",
      url: "http://x/v1/agents/a/responses",
      requestHeaders: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      requestBody: JSON.stringify({ message: KEY }),
      status: 200,
      responseHeaders: { "x-echo": KEY },
      responseBody: "y".repeat(TRANSCRIPT_BODY_CHARS + 50),
      durationMs: 12.7,
    },
    new Redactor([KEY]),
  );
  expect(JSON.stringify(t)).not.toContain(KEY);
  expect(t.request.headers.authorization).toBe("Bearer sk-t…(redacted)");
  expect(t.response?.body).toBe(capText("y".repeat(TRANSCRIPT_BODY_CHARS + 50)));
  expect(t.response?.body?.endsWith("…(50 more characters)")).toBe(true);
  expect(t.durationMs).toBe(13);
});

test("a failed exchange without a response keeps the failure", () => {
  const t = buildTranscript(
    { method: "GET", url: "http://x/", requestHeaders: {}, failure: `timeout for ${KEY}`, durationMs: 1 },
    new Redactor([KEY]),
  );
  expect(t.response).toBeUndefined();
  expect(t.failure).toBe("timeout for sk-t…(redacted)");
});

test("formatted, every body line keeps its direction mark", () => {
  const text = formatTranscript({
    request: { method: "POST", url: "http://x/s", headers: { accept: "text/event-stream" }, body: "{}" },
    response: { status: 200, headers: {}, body: "event: a\r\ndata: {}\r\n\r\n" },
    durationMs: 3,
  });
  expect(text.split("\n")).toEqual([
    "> POST http://x/s",
    "> accept: text/event-stream",
    ">",
    "> {}",
    "< 200",
    "<",
    "< event: a",
    "< data: {}",
    "(3 ms)",
  ]);
});
