/**
 * Shrinking a recorded history keeps the failure it was given: the same requirement, shown by
 * the same operation. Without an operation that explained an answer (a delete before a 404), a
 * history can break the same requirement by another operation, and a counterexample of that
 * would show a failure the service never had.
 */
import { join } from "node:path";
import { expect, test } from "vitest";
import { loadHistory } from "../model/history-file.ts";
import { judgeHistory } from "../model/model.ts";
import type { CreateOp, Op } from "../model/operation.ts";
import type { Entry } from "./session.ts";
import { shrinkHistory } from "./shrink.ts";

const entryOf = (op: Op): Entry => ({
  op,
  lane: 0,
  method: op.kind === "create" ? "POST" : op.kind === "list" ? "GET" : "DELETE",
  path: "",
  answer: "",
  transcript: undefined,
});

/** A plain create of a new conversation as a conforming history recorded it, made another one by `id`. */
function newConversation(id: string, label: string): CreateOp {
  const recorded = loadHistory(join(import.meta.dirname, "../model/histories/conforms-dropped-stream-listed-late.json"))
    .history[0];
  if (recorded?.kind !== "create" || recorded.outcome.type !== "ok")
    throw new Error("the conforming history no longer starts with a create");
  const message = `${recorded.message} ${label}`;
  return {
    ...recorded,
    endpoint: "plain",
    key: `${recorded.key}-${label}`,
    message,
    payload: JSON.stringify({ conversation_id: null, message }),
    raw: JSON.stringify({ message }),
    outcome: { ...recorded.outcome, value: { ...recorded.outcome.value, conversationId: id } },
  };
}

const refusedListing = (conversationId: string, who: Op["who"]): Op => ({
  kind: "list",
  index: 0,
  start: 0,
  end: 0,
  who,
  conversationId,
  query: {},
  outcome: { type: "refused", status: 404, code: "conversation_not_found" },
});

test("a shrunk history shows its failure by the operation that showed it, not by an answer it stopped explaining", () => {
  const a = newConversation("6f0c3b53-9a4e-4f5b-8e7a-1d2c3b4a5f60", "a");
  const b = newConversation("7a1d4c64-ab5f-4a6c-9f8b-2e3d4c5b6a71", "b");
  const deleteB: Op = {
    kind: "delete",
    index: 0,
    start: 0,
    end: 0,
    who: b.who,
    conversationId: "7a1d4c64-ab5f-4a6c-9f8b-2e3d4c5b6a71",
    outcome: { type: "ok", status: 204, value: null },
  };
  // B started, A started, B deleted, B listed 404 (right), A listed 404 (wrong: nothing deleted A).
  const history: Op[] = [
    b,
    a,
    deleteB,
    refusedListing("7a1d4c64-ab5f-4a6c-9f8b-2e3d4c5b6a71", b.who),
    refusedListing("6f0c3b53-9a4e-4f5b-8e7a-1d2c3b4a5f60", a.who),
  ].map((op, i) => ({ ...op, index: i + 1, start: 100 * i, end: 100 * i + 10 }));
  const violation = judgeHistory(history).state.search.failed;
  expect(violation?.requirement).toBe("RESP-2");
  expect(violation === undefined ? undefined : Math.max(...violation.ops)).toBe(5);
  if (violation === undefined) return;

  const shrunk = shrinkHistory(history.map(entryOf), violation);
  expect(shrunk.violation.requirement).toBe("RESP-2");
  // Still A's listing (the last one kept), of A's conversation; B's 404 is gone or explained by B's delete.
  const shownBy = shrunk.entries[Math.max(...shrunk.violation.ops) - 1]?.op;
  expect(shownBy?.kind === "list" ? shownBy.conversationId : undefined).toBe("6f0c3b53-9a4e-4f5b-8e7a-1d2c3b4a5f60");
  const listedB = shrunk.entries.findIndex(
    (e) => e.op.kind === "list" && e.op.conversationId === "7a1d4c64-ab5f-4a6c-9f8b-2e3d4c5b6a71",
  );
  if (listedB !== -1) expect(shrunk.entries.slice(0, listedB).some((e) => e.op.kind === "delete")).toBe(true);
});

test("a create of unknown outcome stays while its conversation is listed later: the listing may show what it wrote", () => {
  const id = "8b2e5d75-bc6a-4b7d-8a9c-3f4e5d6c7b82";
  const first = newConversation(id, "first");
  const item = (n: number) => ({
    id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    role: n % 2 === 0 ? "assistant" : "user",
    content: `item ${n}`,
    created_at: "2026-11-27T22:40:00.000Z",
  });
  const listing = (total: number): Op => ({
    kind: "list",
    index: 0,
    start: 0,
    end: 0,
    who: first.who,
    conversationId: id,
    query: {},
    outcome: {
      type: "ok",
      status: 200,
      value: {
        conversationId: id,
        page: 1,
        pageSize: 50,
        total,
        hasMore: false,
        items: Array.from({ length: total }, (_, n) => item(n + 1)),
        createdAt: "2026-11-27T22:40:00.000Z",
        updatedAt: "2026-11-27T22:40:00.000Z",
      },
    },
  });
  // A continuation whose stream broke off: it may or may not have taken effect.
  const cut: CreateOp = {
    ...newConversation(id, "cut"),
    endpoint: "stream",
    conversationId: id,
    outcome: { type: "unknown", status: 200, reason: "the stream broke off" },
  };
  // 2 messages for one exchange, then 6: no counting explains that for one exchange or two (LIST-5).
  const history: Op[] = [first, listing(2), cut, listing(6)].map((op, i) => ({
    ...op,
    index: i + 1,
    start: 100 * i,
    end: 100 * i + 10,
  }));
  const violation = judgeHistory(history).state.search.failed;
  expect(violation?.requirement).toBe("LIST-5");
  expect(violation === undefined ? undefined : Math.max(...violation.ops)).toBe(4);
  if (violation === undefined) return;
  const shrunk = shrinkHistory(history.map(entryOf), violation);
  expect(shrunk.entries.some((e) => e.op.kind === "create" && e.op.outcome.type === "unknown")).toBe(true);
});
