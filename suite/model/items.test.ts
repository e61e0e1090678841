import { expect, test } from "vitest";
import { changedCopiesOf } from "./items.ts";

const SENT = "conf-1a2b3c4d-m-4 caf\u00e9 \u{1F30A} tide";
const item = (content: unknown) => ({ id: "i1", role: "user", content });

test("a text that keeps a sent message's tag and differs after it is a changed copy of that message", () => {
  expect(changedCopiesOf([item("conf-1a2b3c4d-m-4 caf\u00e9 ? tide")], [SENT])).toEqual([SENT]);
  // Cut short, as a column that truncates leaves it; nested as `content: [{type, text}]` too.
  expect(changedCopiesOf([item([{ type: "text", text: "conf-1a2b3c4d-m-4 caf" }])], [SENT])).toEqual([SENT]);
});

test("the message itself, in another normalisation form or spaced, or followed by more, is no changed copy", () => {
  expect(changedCopiesOf([item(SENT)], [SENT])).toEqual([]);
  expect(changedCopiesOf([item(`  ${SENT.normalize("NFD")} `)], [SENT])).toEqual([]);
  // An answer that quotes the whole message and goes on.
  expect(changedCopiesOf([item(`${SENT} (you asked)`)], [SENT])).toEqual([]);
});

test("a text that does not begin with the tag, or a tag too short to be unique, says nothing", () => {
  expect(changedCopiesOf([item(`You asked: ${SENT.slice(0, 20)}`)], [SENT])).toEqual([]);
  expect(changedCopiesOf([item("conf-1a2b3c4d-m-40 other")], [SENT])).toEqual([]);
  expect(changedCopiesOf([item("hi there")], ["hi you"])).toEqual([]);
});
