/**
 * A replay of a counterexample spends creates from what the property declared, and every create
 * request holds one while it runs: requests sent at once each hold one, a repeat of a key in the
 * same group included. A repeat sent after the key answered 2xx is a replay, free.
 */
import { join } from "node:path";
import { expect, test } from "vitest";
import { loadHistory } from "../model/history-file.ts";
import type { CreateOp } from "../model/operation.ts";
import { createsToReplay } from "./confirm.ts";
import type { Entry } from "./session.ts";

const entryOf = (op: CreateOp): Entry => ({
  op,
  lane: 0,
  method: "POST",
  path: "",
  answer: "",
  transcript: undefined,
});

function recordedCreate(): CreateOp {
  const op = loadHistory(join(import.meta.dirname, "../model/histories/conforms-dropped-stream-listed-late.json"))
    .history[0];
  if (op?.kind !== "create") throw new Error("the conforming history no longer starts with a create");
  return op;
}

test("one key sent to both endpoints at once holds two creates; sent again after it answered, none more", () => {
  const first = recordedCreate();
  const plain: CreateOp = { ...first, index: 1, start: 0, end: 100, endpoint: "plain" };
  const stream: CreateOp = { ...first, index: 2, start: 10, end: 120, endpoint: "stream" };
  const later: CreateOp = { ...first, index: 3, start: 500, end: 520, endpoint: "plain" };
  expect(createsToReplay([plain, stream].map(entryOf))).toBe(2);
  expect(createsToReplay([plain, stream, later].map(entryOf))).toBe(2);
});
