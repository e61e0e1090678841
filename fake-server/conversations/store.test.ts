import { expect, test } from "vitest";
import { newUuid } from "./ids.ts";
import { ConversationStore } from "./store.ts";

const clock = { now: () => 1_700_000_000_000 };

test("an exchange goes to the conversation named, not to the one opened after it", () => {
  const store = new ConversationStore(clock, newUuid);
  const first = store.open("agent-a", "web");
  const second = store.open("agent-a", "web");
  expect(store.appendExchange(first.id, "q1", "a1", [])).toBe(true);
  expect(store.appendExchange(second.id, "q2", "a2", [])).toBe(true);
  expect(first.messages.map((m) => m.content)).toEqual(["q1", "a1"]);
  expect(second.messages.map((m) => m.content)).toEqual(["q2", "a2"]);
  expect(store.stats()).toEqual({ conversations: 2, messages: 4 });
});

test("no exchange is appended to a deleted or cleared conversation, even one just opened", () => {
  const store = new ConversationStore(clock, newUuid);
  const opened = store.open("agent-a", "web");
  expect(store.delete(opened.id, "agent-a", "web")).toBe(true);
  expect(store.appendExchange(opened.id, "q", "a", [])).toBe(false);
  expect(opened.messages).toEqual([]);

  const again = store.open("agent-a", "web");
  store.clear();
  expect(store.appendExchange(again.id, "q", "a", [])).toBe(false);
  expect(store.stats()).toEqual({ conversations: 0, messages: 0 });
});

test("a conversation revived under its id (mutants) takes the exchanges, not the object deleted before", () => {
  const store = new ConversationStore(clock, newUuid);
  const opened = store.open("agent-a", "web");
  store.delete(opened.id, "agent-a", "web", true);
  const reused = store.revive(opened.id, "agent-a", "web", "reuse");
  expect(reused).not.toBe(opened);
  expect(store.appendExchange(opened.id, "q", "a", [])).toBe(true);
  expect(reused?.messages).toHaveLength(2);
  expect(opened.messages).toHaveLength(0);
});
