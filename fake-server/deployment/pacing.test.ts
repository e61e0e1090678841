import { expect, test } from "vitest";
import { baseFaultPlan } from "../faults/fault-plan.ts";
import { OptionsError, resolveOptions } from "../options.ts";
import { createResponse, listMessages, openStream } from "../test-support/client.ts";
import { expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";
import { until } from "../test-support/until.ts";
import { selectBehavior } from "../variants/variants.ts";
import { LLM_PACING, streamLengthMs } from "./pacing.ts";

// The corpus answers this with 67 words: room for 40 deltas.
const LONG = { message: "How do I export my calendar?" };
/** A timer may fire up to a millisecond before its time as Date.now() sees it. */
const SLACK_MS = 2;

/** The stream's events with the milliseconds since the request was sent. */
async function timedStream(url: string, headers: Record<string, string> = {}) {
  const start = Date.now();
  const stream = await openStream(url, { body: LONG, headers });
  const events: { event: string | undefined; at: number }[] = [];
  for (let event = await stream.next(); event !== undefined; event = await stream.next())
    events.push({ event: event.event, at: Date.now() - start });
  const deltas = events.filter((e) => e.event === "response.output_text.delta").length;
  return { events, deltas, first: events[0]?.at ?? Number.NaN, total: Date.now() - start };
}

test("llm-pacing: the first event after the thinking pause, then 20 to 30 deltas a few milliseconds apart", async () => {
  const fake = await fakeServer({ variants: ["llm-pacing"] });
  const { events, deltas, first, total } = await timedStream(fake.url);
  expect(events[0]?.event).toBe("response.created");
  expect(events.at(-1)?.event).toBe("response.completed");
  expect(first).toBeGreaterThanOrEqual(LLM_PACING.firstEventMs - SLACK_MS);
  expect(deltas).toBeGreaterThanOrEqual(LLM_PACING.minDeltas);
  expect(deltas).toBeLessThanOrEqual(LLM_PACING.maxDeltas);
  expect(total).toBeGreaterThanOrEqual(
    streamLengthMs(LLM_PACING.firstEventMs, LLM_PACING.deltaDelayMs, deltas) - SLACK_MS,
  );
});

test("llm-pacing: a plain create waits as long as the stream of its answer, in one pause of the fake's timers", async () => {
  const fake = await fakeServer({ variants: ["llm-pacing"] });
  const { deltas } = await timedStream(fake.url);
  const start = Date.now();
  const creating = createResponse(fake.url, { body: LONG });
  await until(() => fake.app.internals.timers.active === 1, "the create's pause");
  expectResult(await creating);
  expect(Date.now() - start).toBeGreaterThanOrEqual(
    streamLengthMs(LLM_PACING.firstEventMs, LLM_PACING.deltaDelayMs, deltas) - SLACK_MS,
  );
});

test("llm-pacing: an X-Fake-Fault item replaces the pacing's, the rest stays paced", async () => {
  const fake = await fakeServer({ variants: ["llm-pacing"] });
  const { first, deltas } = await timedStream(fake.url, { "x-fake-fault": "first-event-delay=400" });
  expect(first).toBeGreaterThanOrEqual(400 - SLACK_MS);
  expect(deltas).toBeGreaterThanOrEqual(LLM_PACING.minDeltas);
});

test("the pacing option sets heavier numbers, without the variant", async () => {
  const fake = await fakeServer({ pacing: { firstEventMs: 300, deltaDelayMs: 2, minDeltas: 40, maxDeltas: 40 } });
  const { first, deltas, total } = await timedStream(fake.url);
  expect(first).toBeGreaterThanOrEqual(300 - SLACK_MS);
  expect(deltas).toBe(40);
  expect(total).toBeGreaterThanOrEqual(streamLengthMs(300, 2, 40) - SLACK_MS);
});

test("pacing slows creates only: a listing is answered at once", async () => {
  const fake = await fakeServer({ pacing: { firstEventMs: 5_000 } });
  const start = Date.now();
  expect((await listMessages(fake.url, crypto.randomUUID())).status).toBe(404);
  expect(Date.now() - start).toBeLessThan(2_500);
});

test("the pacing option defaults to the variant's numbers and is checked", () => {
  const variant = selectBehavior(undefined, ["llm-pacing"]);
  const option = resolveOptions({ pacing: {} }).behavior;
  expect(option.pacing).toEqual(variant.pacing);
  expect(option.deltaCount).toEqual(variant.deltaCount);
  expect(baseFaultPlan(option)).toMatchObject({
    firstEventDelayMs: LLM_PACING.firstEventMs,
    deltaDelayMs: LLM_PACING.deltaDelayMs,
    paced: true,
  });
  expect(resolveOptions({}).behavior.pacing).toBeNull();
  expect(() => resolveOptions({ pacing: { minDeltas: 5, maxDeltas: 2 } })).toThrow(OptionsError);
  expect(() => resolveOptions({ pacing: { firstEventMs: -1 } })).toThrow(
    "pacing.firstEventMs must be an integer from 0 to 60000",
  );
  expect(() => resolveOptions({ pacing: "slow" } as never)).toThrow("pacing must be an object");
});
