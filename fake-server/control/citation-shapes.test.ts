import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { createResponse, listMessages, streamResponse } from "../test-support/client.ts";
import { expectError } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";
import { control } from "../test-support/control-client.ts";

// The spec leaves a citation's fields open: whatever a client developer scripts comes back as given.
const SHAPES = [
  { title: "Refunds", url: "https://help.example/refunds" },
  { title: "Handbook", url: "https://help.example/handbook.pdf", page: 12 },
  { source: { kind: "pdf", pages: [1, 2] }, score: 0.87, quote: null, verified: true },
  {},
];
// Parsed from JSON text, so "__proto__" is an own key, as any request body would carry it.
const HOSTILE = JSON.parse(
  '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "title": "x"}',
) as object;
const CITATIONS = [...SHAPES, HOSTILE];
/** The citations as they must come back: the same JSON text. */
const WIRE = JSON.stringify(CITATIONS);

const rule = (citations: unknown) => ({
  match: { message_contains: "cite" },
  answer: { text: "Scripted.", citations },
});
const body = (message: string) => ({ body: { message } });
const json = (value: unknown) => JSON.stringify(value);

type Result = { conversation_id: string; citations: unknown };
type Page = { items: { role: string; citations?: unknown }[] };

function completedOf(events: { event?: string; data: string }[]): Result & { output_text: string } {
  const completed = events.find((event) => event.event === "response.completed");
  if (completed === undefined) throw new Error("no response.completed event");
  return (JSON.parse(completed.data) as { response: Result & { output_text: string } }).response;
}

/** The listing's citations as JSON text, read raw so nothing rebuilds the objects. */
async function listedCitations(url: string, conversationId: string): Promise<string> {
  const reply = await listMessages(url, conversationId);
  expect(reply.status).toBe(200);
  const assistant = (JSON.parse(reply.text) as Page).items.filter((item) => item.role === "assistant").at(-1);
  return json(assistant?.citations);
}

test("an answer rule's citations of any shape come back unchanged on create, replay, stream and listing", async () => {
  const fake = await fakeServer();
  const added = await control(
    fake.url,
    "POST",
    "/__fake/answers",
    `{"match":{"message_contains":"cite"},"answer":{"text":"Scripted.","citations":${WIRE}}}`,
  );
  expect(added.status, added.text).toBe(201);
  expect(added.text).toContain(`"citations":${WIRE}`);
  expect((await control(fake.url, "GET", "/__fake/answers")).text).toContain(`"citations":${WIRE}`);

  const created = await createResponse(fake.url, { ...body("please cite"), idempotencyKey: "cite-1" });
  expect(created.status).toBe(200);
  expect(json((created.json as Result).citations)).toBe(WIRE);
  expect(await listedCitations(fake.url, (created.json as Result).conversation_id)).toBe(WIRE);

  const replayed = await createResponse(fake.url, { ...body("please cite"), idempotencyKey: "cite-1" });
  expect(replayed.headers["idempotent-replayed"]).toBe("true");
  expect(json((replayed.json as Result).citations)).toBe(WIRE);

  const streamed = await streamResponse(fake.url, { ...body("cite again"), idempotencyKey: "cite-2" });
  const completed = completedOf(streamed.events);
  expect(json(completed.citations)).toBe(WIRE);
  expect(await listedCitations(fake.url, completed.conversation_id)).toBe(WIRE);
  const streamReplay = await streamResponse(fake.url, { ...body("cite again"), idempotencyKey: "cite-2" });
  expect(streamReplay.status, streamReplay.text).toBe(200);
  expect(json(completedOf(streamReplay.events).citations)).toBe(WIRE);
  expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
});

test("the answers option takes any shape, and a caller's later change to its objects changes nothing", async () => {
  const mine = { title: "Mine", url: "https://help.example/mine" };
  const fake = await fakeServer({ answers: [rule([mine])] });
  mine.title = "changed afterwards";
  const created = await createResponse(fake.url, body("cite"));
  expect((created.json as Result).citations).toEqual([{ title: "Mine", url: "https://help.example/mine" }]);
});

test("a fixture's citations of any shape come back unchanged on export and listing", async () => {
  const fake = await fakeServer();
  const messages = `[{"role":"user","content":"q"},{"role":"assistant","content":"a","citations":${WIRE}}]`;
  const imported = await control(
    fake.url,
    "POST",
    "/__fake/conversations",
    `{"agent":"agent-a","messages":${messages}}`,
  );
  expect(imported.status, imported.text).toBe(201);
  const id = (imported.json as { conversation_id: string }).conversation_id;
  expect((await control(fake.url, "GET", `/__fake/conversations/${id}`)).text).toContain(`"citations":${WIRE}`);
  expect(await listedCitations(fake.url, id)).toBe(WIRE);
});

test.each([
  ["a string", ["kb-9"]],
  ["an array", [[{ title: "x" }]]],
  ["null", [null]],
])("a citation that is %s is a 400 naming the field, in rules and fixtures alike", async (_, citations) => {
  const fake = await fakeServer();
  const ruleReply = await control(fake.url, "POST", "/__fake/answers", rule(citations));
  expect(expectError(ruleReply, 400, "invalid_request").error.message).toContain("answer.citations.0");
  const fixture = { agent: "agent-a", messages: [{ role: "assistant", content: "a", citations }] };
  const fixtureReply = await control(fake.url, "POST", "/__fake/conversations", fixture);
  expect(expectError(fixtureReply, 400, "invalid_request").error.message).toContain("messages.0.citations.0");
});

test("the built-in answers keep the fake's own citation shape", async () => {
  const fake = await fakeServer();
  const created = await createResponse(fake.url, body("How do I export my calendar?"));
  const citations = (created.json as Result).citations as Record<string, unknown>[];
  expect(citations.length).toBeGreaterThan(0);
  for (const citation of citations) expect(Object.keys(citation)).toEqual(["document_id", "title", "url", "snippet"]);
});

test("citations of any shape survive a --state file round trip", async () => {
  const folder = mkdtempSync(join(tmpdir(), "citations-state-"));
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
  const stateFile = join(folder, "state.json");
  const first = await fakeServer({ stateFile });
  const messages = `[{"role":"user","content":"q"},{"role":"assistant","content":"a","citations":${WIRE}}]`;
  const id = (
    JSON.parse(
      (await control(first.url, "POST", "/__fake/conversations", `{"agent":"agent-a","messages":${messages}}`)).text,
    ) as { conversation_id: string }
  ).conversation_id;
  await first.close();
  const second = await fakeServer({ stateFile });
  expect(await listedCitations(second.url, id)).toBe(WIRE);
});
