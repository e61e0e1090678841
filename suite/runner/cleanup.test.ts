/**
 * End-of-run cleanup: what a check already deleted is not asked for again, and a 404 for a
 * conversation the run created is "not found at cleanup", never counted as cleaned up.
 */

import { expect, test } from "vitest";
import type { JournalEntry } from "../checks/runtime/journal.ts";
import type { HttpResult, RequestOptions, ServiceClient } from "../http/types.ts";
import { cleanupConversations, journalTotals } from "./cleanup.ts";

const A = "0190a000-0000-7000-8000-00000000000a";
const B = "0190a000-0000-7000-8000-00000000000b";
const C = "0190a000-0000-7000-8000-00000000000c";
const owner = { agentId: "agent-a", key: "primary" as const };

function answer(status: number): HttpResult {
  return {
    status,
    headers: {},
    text: "",
    json: undefined,
    transcript: { request: { method: "DELETE", url: "http://x", headers: {} }, durationMs: 1 },
  };
}

/** A client whose DELETE answers with the status given per conversation, recording what was asked. */
function deletingClient(statuses: Record<string, number>, asked: string[]): ServiceClient {
  const unused = () => Promise.reject(new Error("not used by cleanup"));
  return {
    create: unused,
    stream: unused,
    list: unused,
    delete: (conversationId: string, _options?: RequestOptions) => {
      asked.push(conversationId);
      return Promise.resolve(answer(statuses[conversationId] ?? 204));
    },
  };
}

test("a conversation a check deleted is counted and not deleted again", () => {
  const entries: JournalEntry[] = [
    { type: "create", check: "c" },
    { type: "track", conversationId: A, owner, check: "c" },
    { type: "track", conversationId: B, owner, check: "c" },
    { type: "deleted", conversationId: A.toUpperCase(), check: "DEL-1" },
  ];
  const totals = journalTotals(entries);
  expect(totals.tracked.map((t) => t.conversationId)).toEqual([B]);
  expect(totals.deletedByChecks).toBe(1);
});

test("a DELETE answering 404 at cleanup is reported as not found at cleanup, not as cleaned up", async () => {
  const asked: string[] = [];
  const tracked = [A, B, C].map((conversationId) => ({ conversationId, owner }));
  const result = await cleanupConversations(
    tracked,
    deletingClient({ [B]: 404, [C]: 500 }, asked),
    { primary: "sk-1", other: undefined },
    2,
  );
  expect(asked.sort()).toEqual([A, B, C]);
  expect(result).toEqual({ deleted: 1, failed: [{ conversationId: C, reason: "DELETE answered 500" }], notFound: [B] });
});

test("a cleanup where every DELETE succeeds has no not-found list", async () => {
  const result = await cleanupConversations(
    [{ conversationId: A, owner }],
    deletingClient({}, []),
    { primary: "sk-1", other: undefined },
    1,
  );
  expect(result).toEqual({ deleted: 1, failed: [] });
});
