/**
 * A counterexample names conversations, keys and messages by short aliases. A conversation id is
 * a UUID, the same id in either case; two keys that differ only in case are two keys, and must
 * read as two (a near-miss named like the key it misses reads as a reuse of that key).
 */
import { join } from "node:path";
import { expect, test } from "vitest";
import { loadHistory } from "../model/history-file.ts";
import type { CreateOp } from "../model/operation.ts";
import { buildCounterexample } from "./counterexample.ts";
import type { Entry } from "./session.ts";

function recordedCreate(): CreateOp {
  const op = loadHistory(join(import.meta.dirname, "../model/histories/conforms-dropped-stream-listed-late.json"))
    .history[0];
  if (op?.kind !== "create" || op.outcome.type !== "ok")
    throw new Error("the conforming history no longer starts with a create");
  return op;
}

test("keys that differ only in case get two aliases; one conversation id written in either case gets one", () => {
  const first = recordedCreate();
  if (first.outcome.type !== "ok") return;
  const conversation = first.outcome.value.conversationId;
  const key = "conf-run-k-7Ab";
  const ops: CreateOp[] = [
    { ...first, index: 1, start: 0, end: 10, key, message: "conf-run-m-1 one" },
    {
      ...first,
      index: 2,
      start: 20,
      end: 30,
      key: key.toUpperCase(),
      message: "conf-run-m-2 two",
      conversationId: conversation.toUpperCase(),
    },
  ];
  const entries: Entry[] = ops.map((op) => ({
    op,
    lane: 0,
    method: "POST",
    path: "/v1/agents/agent-a/responses",
    answer: `200 conversation ${conversation}`,
    transcript: undefined,
  }));
  const c = buildCounterexample(
    entries,
    { requirement: "RESP-2", ops: [1, 2], message: { parts: ["the listing lacks an exchange"] } },
    { historyLength: 2, seed: 1, path: "0", confirmation: "confirmed", replay: "" },
  );
  const [one, two] = c.operations;
  expect(one?.request).toContain("key=K1 ");
  expect(two?.request).toContain("key=K2 ");
  expect(two?.request).toContain("conversation=C1");
  expect([one?.answer, two?.answer]).toEqual(["200 conversation C1", "200 conversation C1"]);
});
