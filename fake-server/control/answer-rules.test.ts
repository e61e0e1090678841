import { expect, test } from "vitest";
import { RequestLogPage } from "../request-log/schemas.ts";
import { createResponse, listMessages, streamResponse } from "../test-support/client.ts";
import { expectError, expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";
import { control, inSession } from "../test-support/control-client.ts";

const CITATION = {
  document_id: "kb-9",
  title: "Refunds",
  url: "https://help.example/refunds",
  snippet: "Refunds take 5 days.",
};
const REFUND = {
  match: { message_regex: "refund|money back" },
  answer: { text: "Refunds take **5 days**.", citations: [CITATION] },
};

const deltasOf = (reply: Awaited<ReturnType<typeof streamResponse>>) =>
  reply.events
    .filter((event) => event.event === "response.output_text.delta")
    .map((event) => (JSON.parse(event.data) as { delta: string }).delta);

test("a scripted answer is what create returns and what the listing holds", async () => {
  const fake = await fakeServer();
  const added = await control(fake.url, "POST", "/__fake/answers", REFUND);
  expect(added.status).toBe(201);
  expect(added.json).toMatchObject({
    id: expect.stringMatching(/^answer-\d+$/),
    times: 0,
    remaining: null,
    applied: 0,
  });
  const result = expectResult(await createResponse(fake.url, { body: { message: "Can I get my money back?" } }));
  expect(result).toMatchObject({ response: "Refunds take **5 days**.", citations: [CITATION] });
  const page = expectPage(await listMessages(fake.url, result.conversation_id));
  expect(page.items.at(-1)).toMatchObject({
    role: "assistant",
    content: "Refunds take **5 days**.",
    citations: [CITATION],
  });
  expect(
    expectResult(await createResponse(fake.url, { body: { message: "How do reminders work?" } })).response,
  ).not.toContain("Refunds");
  // Only the matching create counts.
  expect((await control(fake.url, "GET", "/__fake/answers")).json).toMatchObject({
    answers: [{ remaining: null, applied: 1 }],
  });
});

test("a stream sends the given deltas as they are; without deltas the text is split as usual", async () => {
  const fake = await fakeServer();
  const deltas = ["Refunds take ", "**5 days**.\n\n", "- Open *Billing*"];
  await control(fake.url, "POST", "/__fake/answers", {
    match: { message_contains: "given" },
    answer: { text: deltas.join(""), deltas },
  });
  await control(fake.url, "POST", "/__fake/answers", {
    match: { message_contains: "split" },
    answer: { text: "one two three four five six seven eight nine ten" },
  });
  expect(deltasOf(await streamResponse(fake.url, { body: { message: "given pieces" } }))).toEqual(deltas);
  const split = deltasOf(await streamResponse(fake.url, { body: { message: "split it" } }));
  expect(split.join("")).toBe("one two three four five six seven eight nine ten");
  expect(split.length).toBeGreaterThan(1);
});

test("matching by agent, and times counted down; the journal names the rule", async () => {
  const fake = await fakeServer();
  const { id } = (
    await control(fake.url, "POST", "/__fake/answers", {
      match: { agent: "agent-b" },
      answer: { text: "scripted for b" },
      times: 2,
    })
  ).json as { id: string };
  expect(expectResult(await createResponse(fake.url)).response).not.toBe("scripted for b");
  expect(expectResult(await createResponse(fake.url, { agent: "agent-b" })).response).toBe("scripted for b");
  expect(expectResult(await createResponse(fake.url, { agent: "agent-b" })).response).toBe("scripted for b");
  expect(expectResult(await createResponse(fake.url, { agent: "agent-b" })).response).not.toBe("scripted for b");
  const { requests } = RequestLogPage.parse((await control(fake.url, "GET", "/__fake/requests")).json);
  expect(requests.map((entry) => entry.answer_rule)).toEqual([null, id, id, null]);
});

test("a replay under the same key gives the scripted answer again, without using the rule", async () => {
  const fake = await fakeServer();
  await control(fake.url, "POST", "/__fake/answers", { answer: { text: "only once" }, times: 1 });
  const first = await createResponse(fake.url, { idempotencyKey: "same" });
  const replay = await createResponse(fake.url, { idempotencyKey: "same" });
  expect(replay.headers["idempotent-replayed"]).toBe("true");
  expect(expectResult(replay).response).toBe(expectResult(first).response);
  expect(expectResult(first).response).toBe("only once");
});

test("the answers option loads rules at start, and a bad one stops the start", async () => {
  const fake = await fakeServer({ answers: [REFUND] });
  expect(expectResult(await createResponse(fake.url, { body: { message: "refund?" } })).response).toBe(
    "Refunds take **5 days**.",
  );
  await expect(fakeServer({ answers: [{ answer: { text: "a", deltas: ["b"] } }] })).rejects.toThrow(/rule 0: .*deltas/);
});

test("loaded rules are every session's starting state: they apply in any session, each counted apart, and a session's reset restores them", async () => {
  const fake = await fakeServer({ answers: [REFUND] });
  const refund = { body: { message: "refund?" } };
  const answered = async (session?: string) =>
    expectResult(await createResponse(fake.url, session === undefined ? refund : { ...refund, ...inSession(session) }))
      .response;
  const rulesOf = async (session?: string) =>
    ((await control(fake.url, "GET", "/__fake/answers", undefined, session)).json as { answers: { applied: number }[] })
      .answers;

  expect(await answered("checkout-tests")).toBe("Refunds take **5 days**.");
  expect((await rulesOf("checkout-tests")).map((rule) => rule.applied)).toEqual([1]);
  expect((await rulesOf()).map((rule) => rule.applied)).toEqual([0]);

  // A session that removed the rule gets it back from its reset; the default session too.
  for (const session of ["checkout-tests", "default"]) {
    expect((await control(fake.url, "DELETE", "/__fake/answers", undefined, session)).status).toBe(204);
    expect(await answered(session)).not.toBe("Refunds take **5 days**.");
    expect((await control(fake.url, "POST", "/__fake/reset", undefined, session)).status).toBe(204);
    expect(await answered(session)).toBe("Refunds take **5 days**.");
    expect((await rulesOf(session)).map((rule) => rule.applied)).toEqual([1]);
  }
  // A full reset too.
  expect((await control(fake.url, "POST", "/__fake/reset")).status).toBe(204);
  expect(await answered("another")).toBe("Refunds take **5 days**.");
});

test.each([
  ["a regex that does not compile", { match: { message_regex: "(" } }, "match.message_regex"],
  ["deltas that do not make up the text", { answer: { text: "abc", deltas: ["ab", "d"] } }, "answer.deltas"],
  ["an unknown field", { answer: { text: "abc" }, colour: "red" }, "colour"],
  ["an unknown answer field", { answer: { text: "abc", html: "<b>" } }, "answer.html"],
  ["empty text", { answer: { text: "" } }, "answer.text"],
  ["a citation that is not an object", { answer: { text: "abc", citations: ["kb-9"] } }, "answer.citations.0"],
  ["no answer", { match: {} }, "answer"],
])("%s is a 400 naming the field, and no rule is added", async (_, body, field) => {
  const fake = await fakeServer();
  const full = "answer" in body ? body : { answer: { text: "abc" }, ...body };
  const message = expectError(
    await control(fake.url, "POST", "/__fake/answers", field === "answer" ? body : full),
    400,
    "invalid_request",
  ).error.message;
  expect(message).toContain(field);
  expect((await control(fake.url, "GET", "/__fake/answers")).json).toEqual({ answers: [] });
});

test.each(["/__fake/answers", "/__fake/faults", "/__fake/conversations"])(
  "malformed JSON to %s is 400 invalid_json, and nothing is added",
  async (path) => {
    const fake = await fakeServer();
    expectError(await control(fake.url, "POST", path, '{"answer": {'), 400, "invalid_json");
    expect((await control(fake.url, "GET", "/__fake/answers")).json).toEqual({ answers: [] });
  },
);
