import { expect, test } from "vitest";
import { KeySpecError, parseKeySpec, parseKeySpecs, redactKey } from "./keys.ts";
import { DEFAULT_KEYS } from "../options.ts";

test('a key grants its agents on its channel; the channel defaults to "default"', () => {
  expect(parseKeySpec("sk-1=agent-a,agent-b@web")).toEqual({
    token: "sk-1",
    agents: new Set(["agent-a", "agent-b"]),
    channel: "web",
  });
  expect(parseKeySpec("sk-2=agent-a")).toEqual({ token: "sk-2", agents: new Set(["agent-a"]), channel: "default" });
});

test("the default keys parse", () => {
  const keys = parseKeySpecs(DEFAULT_KEYS);
  expect(keys.get("sk-fake-b")).toEqual({ token: "sk-fake-b", agents: new Set(["agent-a"]), channel: "sms" });
});

test.each(["", "=agent", "sk", "sk=", "sk=a,,b", "sk=a@", "sk=a@we b", "s k=a", "sk=a/b"])("%j is rejected", (spec) => {
  expect(() => parseKeySpec(spec)).toThrow(KeySpecError);
});

test("a token given twice, or no key at all, is a configuration error", () => {
  expect(() => parseKeySpecs(["sk=a", "sk=b"])).toThrow(/given twice/);
  expect(() => parseKeySpecs([])).toThrow(KeySpecError);
});

test("keys are redacted to their first 6 characters", () => {
  expect(redactKey("sk-fake-a")).toBe("sk-fak…");
});
