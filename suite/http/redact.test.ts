import { describe, expect, test } from "vitest";
import { displayUrl, redactAuthorization, redactKey, Redactor } from "./redact.ts";

describe("redaction", () => {
  test("a key keeps its first four characters only when it is long enough to spare them", () => {
    expect(redactKey("sk-fake-a")).toBe("sk-f…(redacted)");
    expect(redactKey("short")).toBe("…(redacted)");
  });

  test("an Authorization value keeps its scheme", () => {
    expect(redactAuthorization("Bearer sk-live-123456")).toBe("Bearer sk-l…(redacted)");
    expect(redactAuthorization("Bearer ")).toBe("Bearer ");
    expect(redactAuthorization("sk-live-123456")).toBe("sk-l…(redacted)");
  });

  test("scrub replaces every occurrence of every secret, the longest first", () => {
    const redactor = new Redactor(["sk-abcdefgh", "sk-abcdefgh-long", null, undefined, ""]);
    expect(redactor.scrub("a sk-abcdefgh-long b sk-abcdefgh c sk-abcdefgh")).toBe(
      "a sk-a…(redacted) b sk-a…(redacted) c sk-a…(redacted)",
    );
    expect(redactor.scrub("sk-abcdefgh-long")).not.toContain("-long");
  });

  test("headers: Authorization always redacted, other values scrubbed", () => {
    const redactor = new Redactor(["sk-secret-1"]);
    expect(redactor.headers({ authorization: "Basic dXNlcjpwYXNz", "x-echo": "got sk-secret-1", accept: "x" })).toEqual(
      {
        authorization: "Basic dXNl…(redacted)",
        "x-echo": "got sk-s…(redacted)",
        accept: "x",
      },
    );
  });

  test("displayUrl drops user info", () => {
    expect(displayUrl("https://user:pass@api.example/v")).toBe("https://api.example/v");
    expect(displayUrl("not a url")).toBe("(invalid URL)");
  });
});
