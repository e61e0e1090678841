/**
 * The proof of the traffic judge: the proxy in front of the fake, each conforming variant and
 * each mutant, with the same traffic. Conforming targets show no service violation; every
 * mutant traffic can reveal shows its own requirement; the example clients show exactly their
 * client rules; and the same traffic saved as HAR and judged offline gives the same verdicts.
 */
import { expect, test } from "vitest";
import { createAgentClient } from "../../../examples/well-behaved-client.ts";
import { createCarelessClient } from "../../../examples/careless-client.ts";
import { MUTANTS } from "../../../fake-server/variants/mutants.ts";
import { VARIANT_NAMES } from "../../../fake-server/variants/variants.ts";
import { Redactor } from "../../http/redact.ts";
import { readHar, writeHar } from "../har.ts";
import { createTrafficJudge } from "../judge.ts";
import { UNOBSERVABLE } from "../unobservable.ts";
import {
  brokenOf,
  clientFailures,
  inBatches,
  judgeThroughProxy,
  serviceFailures,
  WIDE_CLIENT_RULES,
  type ProofRun,
} from "./judge-through-proxy.ts";
import { runTrafficScript, SCRIPT_CLIENT_VIOLATIONS } from "./traffic-script.ts";

/**
 * Mutants the traffic script cannot reveal, and why: most break a requirement no traffic can
 * show (suite/traffic/unobservable.ts); five need a read late in --settle-ms after the write or
 * the delete, which the script does not wait for (right after a delete, a conversation still
 * shown may be the service's lag), and have tests of their own below.
 */
const UNREVEALED: Record<string, string> = {
  "listing-never-settles": "needs a listing --settle-ms after a continuation (the settled-listing test)",
  "delete-keeps-listing": "needs a read late in --settle-ms after the delete (the late-read tests)",
  "deleted-comes-back": "needs a read late in --settle-ms after the delete (the late-read test)",
  "deleted-continuable": "needs a read late in --settle-ms after the delete (the late-read test)",
  "metadata-rejected": "a refusal of valid metadata cannot be told from a refusal for another reason",
  "retry-counted-twice": "the same: a retry's cost shows only in totals read around it",
  "no-in-flight-reservation": "concurrent requests with one key may fairly get 409 or a replay",
  "stream-not-stored": "needs a listing --settle-ms after a stream (the settled-listing test)",
  "total-counts-scope": "judging total needs every conversation of the scope listed",
  "channels-not-isolated": "traffic does not show which keys share a channel",
  // The interaction mutants: the script sends one request at a time, as most clients do; their
  // bugs need overlapping requests, replays after later turns or other identities' attempts,
  // which the interaction property makes on purpose.
  ...Object.fromEntries(
    MUTANTS.filter((m) => m.interaction).map((m) => [
      m.name,
      "a bug between requests: the script makes no overlap, late replay or foreign attempt",
    ]),
  ),
};

const clientRules = WIDE_CLIENT_RULES;

test("the fake and every conforming variant: no service violation, the script's three client rules only; pass only where observed", async () => {
  const targets = [undefined, ...VARIANT_NAMES];
  const runs = await inBatches(targets, 4, (variant) =>
    judgeThroughProxy({ clientRules, ...(variant === undefined ? {} : { variants: [variant] }) }, runTrafficScript),
  );
  runs.forEach((run, i) => {
    const name = targets[i] ?? "plain";
    expect({ name, service: serviceFailures(run) }).toEqual({ name, service: [] });
    expect({ name, client: clientFailures(run) }).toEqual({ name, client: SCRIPT_CLIENT_VIOLATIONS });
    for (const requirement of run.report.requirements) {
      if (requirement.status === "pass")
        expect(requirement.tests[0]?.name, requirement.id).toMatch(/^[1-9]\d* observed/);
    }
  });
  // The script reaches every requirement traffic can show: on the plain fake only those no
  // traffic can show stay not_observed, and IDEM-5 and IDEM-9, which need a same-key race in the
  // traffic, which the script does not make.
  expect(
    runs[0]?.report.requirements
      .filter((r) => r.status === "not_observed")
      .map((r) => r.id)
      .sort(),
  ).toEqual([...Object.keys(UNOBSERVABLE), "IDEM-5", "IDEM-9"].sort());
}, 120_000);

test("behind a compressing gateway (gzip, deflate) the proxy judges the decoded bodies: no service violation, a mutant still shown", async () => {
  const runs = await Promise.all([
    judgeThroughProxy({ clientRules }, runTrafficScript, { compressedBy: "gzip" }),
    judgeThroughProxy({ clientRules }, runTrafficScript, { compressedBy: "deflate" }),
    judgeThroughProxy({ clientRules, mutant: "replay-alters-answer" }, runTrafficScript, { compressedBy: "gzip" }),
  ]);
  for (const run of runs.slice(0, 2)) {
    expect(run.exchanges.some((e) => e.response?.headers["content-encoding"] !== undefined)).toBe(true);
    expect(serviceFailures(run)).toEqual([]);
    // Coded reads do not map onto events, so only SSE-9 joins what no traffic can show.
    const notObserved = run.report.requirements
      .filter((r) => r.status === "not_observed")
      .map((r) => r.id)
      .sort();
    expect(notObserved).toEqual([...Object.keys(UNOBSERVABLE), "IDEM-5", "IDEM-9", "SSE-9"].sort());
  }
  expect(runs[2]?.broken["IDEM-1"]).toBe("fail");
}, 60_000);

/**
 * Deletes a conversation already listed, then lists it until it is gone (at most `polls` times,
 * 100 ms apart), as a client of a lagging service would. `firstListAfterMs`: wait that long before the first
 * listing instead of polling, so the service's lag is first seen after the delete.
 */
async function deleteThenPoll(baseUrl: string, firstListAfterMs = 0, polls = 20): Promise<void> {
  const headers = { authorization: "Bearer sk-fake-a", "content-type": "application/json" };
  const api = `${baseUrl}/v1/agents/agent-a`;
  const created = await fetch(`${api}/responses`, {
    method: "POST",
    headers: { ...headers, "idempotency-key": crypto.randomUUID() },
    body: JSON.stringify({ message: "hello" }),
  });
  const { conversation_id: id } = (await created.json()) as { conversation_id: string };
  const list = async () => (await fetch(`${api}/conversations/${id}/messages`, { headers })).status;
  const pause = (ms = 100) => new Promise((resolve) => setTimeout(resolve, ms));
  await pause(firstListAfterMs);
  while ((await list()) !== 200) await pause();
  await (await fetch(`${api}/conversations/${id}`, { method: "DELETE", headers })).text();
  for (let i = 0; i < polls && (await list()) === 200; i++) await pause();
}

test("a delete that shows late (listing-lag) is not blamed when a later listing sees it gone; one that never shows is, once --settle-ms passed", async () => {
  const [lagSeenFirst, lagSeenLate, keepsListing, keepsListingBriefly] = await Promise.all([
    judgeThroughProxy({ variants: ["listing-lag"], clientRules }, (url) => deleteThenPoll(url)),
    judgeThroughProxy({ variants: ["listing-lag"], clientRules }, (url) => deleteThenPoll(url, 400)),
    // Polled past the default --settle-ms (3000 ms).
    judgeThroughProxy({ mutant: "delete-keeps-listing", clientRules }, (url) => deleteThenPoll(url, 400, 40)),
    // The traffic ends inside the window: nothing decides it, and it is never a pass.
    judgeThroughProxy({ mutant: "delete-keeps-listing", clientRules }, (url) => deleteThenPoll(url, 400, 5)),
  ]);
  for (const lagging of [lagSeenFirst, lagSeenLate]) {
    // The lagging service was seen still listing the deleted conversation, then not.
    const listings = lagging.exchanges.filter((e) => e.request.method === "GET").map((e) => e.response?.status);
    expect(listings.slice(-2)).toEqual([200, 404]);
    expect(lagging.broken).toEqual({});
    expect(lagging.report.requirements.find((r) => r.id === "DEL-1")?.status).toBe("pass");
  }
  // Lag first seen after the delete: the listing that still showed it was held, then taken back.
  expect(lagSeenLate.exchanges.filter((e) => e.request.method === "GET").map((e) => e.response?.status)[0]).toBe(200);
  expect(keepsListing.broken["DEL-1"]).toBe("fail");
  expect(keepsListingBriefly.report.requirements.find((r) => r.id === "DEL-1")?.status).toBe("inconclusive");
  expect(keepsListingBriefly.report.traffic.undecided.map((u) => u.requirement)).toEqual(["DEL-1"]);
}, 30_000);

/**
 * A conversation listed, continued by a stream, listed again once `settleMs` passed, continued
 * plainly, and listed again: what shows that an exchange was stored, on a service whose
 * listing may lag (no longer than `settleMs`).
 */
async function continueThenListLater(baseUrl: string, settleMs: number): Promise<void> {
  const headers = { authorization: "Bearer sk-fake-a", "content-type": "application/json" };
  const api = `${baseUrl}/v1/agents/agent-a`;
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const create = async (path: string, body: object, extra: Record<string, string> = {}) =>
    (
      await fetch(`${api}${path}`, {
        method: "POST",
        headers: { ...headers, ...extra, "idempotency-key": crypto.randomUUID() },
        body: JSON.stringify(body),
      })
    ).text();
  const { conversation_id: id } = JSON.parse(await create("/responses", { message: "hello" })) as {
    conversation_id: string;
  };
  const list = async () => (await fetch(`${api}/conversations/${id}/messages`, { headers })).status;
  while ((await list()) !== 200) await pause(50);
  await create("/responses/stream", { message: "and streamed?", conversation_id: id }, { accept: "text/event-stream" });
  await pause(settleMs + 50);
  await list();
  await create("/responses", { message: "and plainly?", conversation_id: id });
  await pause(settleMs + 50);
  await list();
}

test("a listing --settle-ms after a continuation shows whether it was stored: RESP-2 (plain) and SSE-8 (streamed)", async () => {
  const settleMs = 400;
  const drive = (url: string) => continueThenListLater(url, settleMs);
  const targets: [string, object][] = [
    ["plain", {}],
    ["listing-lag", { variants: ["listing-lag"] }],
    ["three-messages", { variants: ["three-messages"] }],
    ["stream-not-stored", { mutant: "stream-not-stored" }],
    ["listing-never-settles", { mutant: "listing-never-settles" }],
  ];
  const runs = await Promise.all(
    targets.map(([, options]) => judgeThroughProxy({ ...options, clientRules }, drive, { settleMs })),
  );
  const verdicts = Object.fromEntries(
    runs.map((run, i) => [
      targets[i]?.[0],
      {
        broken: run.broken,
        observed: ["RESP-2", "SSE-8"].map((id) => run.report.requirements.find((r) => r.id === id)?.status),
      },
    ]),
  );
  expect(verdicts).toEqual({
    plain: { broken: {}, observed: ["pass", "pass"] },
    "listing-lag": { broken: {}, observed: ["pass", "pass"] },
    "three-messages": { broken: {}, observed: ["pass", "pass"] },
    "stream-not-stored": { broken: { "SSE-8": "fail" }, observed: ["pass", "fail"] },
    "listing-never-settles": { broken: { "SSE-8": "fail", "RESP-2": "fail" }, observed: ["fail", "fail"] },
  });
}, 30_000);

/**
 * A conversation listed, deleted, then continued and listed late in --settle-ms (`lateMs` after
 * the delete, in the window's second half), and the traffic ends: reads there that still find the
 * conversation count against the service, as the suite's last settled read would; a service
 * whose reads lag less than `lateMs` has caught up by then.
 */
async function deleteThenReadLate(baseUrl: string, lateMs: number): Promise<void> {
  const headers = { authorization: "Bearer sk-fake-a", "content-type": "application/json" };
  const api = `${baseUrl}/v1/agents/agent-a`;
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const create = async (body: object) =>
    (
      await fetch(`${api}/responses`, {
        method: "POST",
        headers: { ...headers, "idempotency-key": crypto.randomUUID() },
        body: JSON.stringify(body),
      })
    ).text();
  const { conversation_id: id } = JSON.parse(await create({ message: "hello" })) as { conversation_id: string };
  const list = async () => (await fetch(`${api}/conversations/${id}/messages`, { headers })).status;
  while ((await list()) !== 200) await pause(50);
  await (await fetch(`${api}/conversations/${id}`, { method: "DELETE", headers })).text();
  await pause(lateMs);
  await create({ message: "and now?", conversation_id: id });
  await list();
}

test("a continuation and a listing late in --settle-ms after a delete show whether it holds: DEL-1 (brought back, or never removed) and DEL-3 (continued)", async () => {
  // The listing-lag variant lags 300 ms: caught up by 600 ms, in the second half of a 1000 ms window.
  const settleMs = 1_000;
  const drive = (url: string) => deleteThenReadLate(url, 600);
  const targets: [string, object][] = [
    ["plain", {}],
    ["listing-lag", { variants: ["listing-lag"] }],
    ["delete-keeps-listing", { mutant: "delete-keeps-listing" }],
    ["deleted-comes-back", { mutant: "deleted-comes-back" }],
    ["deleted-continuable", { mutant: "deleted-continuable" }],
  ];
  const runs = await Promise.all(
    targets.map(([, options]) => judgeThroughProxy({ ...options, clientRules }, drive, { settleMs })),
  );
  const own = (name: string) => MUTANTS.find((m) => m.name === name)?.requirement;
  const verdicts = Object.fromEntries(
    runs.map((run, i) => {
      const name = targets[i]?.[0] ?? "";
      return [
        name,
        { service: serviceFailures(run), own: own(name) === undefined ? "conforming" : run.broken[own(name) ?? ""] },
      ];
    }),
  );
  expect(verdicts).toMatchObject({
    plain: { service: [], own: "conforming" },
    "listing-lag": { service: [], own: "conforming" },
    "delete-keeps-listing": { own: "fail" },
    "deleted-comes-back": { own: "fail" },
    // DEL-3 is a SHOULD.
    "deleted-continuable": { own: "warn" },
  });
}, 30_000);

test("every mutant traffic can reveal shows its own requirement; the others are listed with the reason", async () => {
  expect(Object.keys(UNREVEALED).every((name) => MUTANTS.some((m) => m.name === name))).toBe(true);
  const revealable = MUTANTS.filter((m) => UNREVEALED[m.name] === undefined);
  const runs = await inBatches(revealable, 4, (mutant) =>
    judgeThroughProxy({ mutant: mutant.name, clientRules }, runTrafficScript),
  );
  const missed = revealable
    .filter((mutant, i) => runs[i]?.broken[mutant.requirement] === undefined)
    .map((m) => `${m.name} (${m.requirement})`);
  expect(missed).toEqual([]);
}, 120_000);

test("the well-behaved example client shows no violation in either direction; the careless one shows its client rules", async () => {
  const good = await judgeThroughProxy({ keys: ["sk-good-1=helper"], clientRules }, async (baseUrl) => {
    const client = createAgentClient({ baseUrl, apiKey: "sk-good-1", agentId: "helper" });
    const first = await client.createResponse({ message: "How do reminders work?" });
    await client.streamResponse({ message: "And exports?", conversation_id: first.conversation_id });
    await client.listMessages(first.conversation_id, { page: 1, pageSize: 2 });
    await client.deleteConversation(first.conversation_id);
  });
  expect(good.broken).toEqual({});

  const careless = await judgeThroughProxy({ keys: ["sk-careless-1=helper"], clientRules }, async (baseUrl) => {
    const client = createCarelessClient({ baseUrl, apiKey: "sk-careless-1", agentId: "helper" });
    await client.ask("How do reminders work?");
    await client.ask("How do I export my data?");
    await client.askQuickly("hello");
    await client.streamAnswer("Tell me about plans").catch(() => undefined);
  });
  expect(serviceFailures(careless)).toEqual([]);
  expect(clientFailures(careless)).toEqual(expect.arrayContaining(["CLIENT-2", "CLIENT-3", "CLIENT-5", "CLIENT-6"]));
}, 60_000);

test("the same traffic saved as HAR and judged offline gives the same verdicts, to the count of exchanges (SSE-9 aside: HAR keeps no chunk times)", async () => {
  const targets = [
    {},
    { mutant: "replay-alters-answer" },
    { mutant: "delta-without-event-line" },
    { mutant: "list-ignores-agent" },
    { mutant: "validation-consumes-key" },
    { variants: ["crlf"] },
  ];
  const runs = await Promise.all(
    targets.map((options) => judgeThroughProxy({ clientRules, ...options }, runTrafficScript)),
  );
  for (const run of runs) {
    const judge = createTrafficJudge({ target: "har", redactor: new Redactor([]) });
    for (const exchange of readHar(JSON.stringify(writeHar(run.exchanges)), "proof.har")) judge.observe(exchange);
    // The HAR holds starts to the millisecond, as the proxy records them: the same times, the same verdicts.
    expect(run.exchanges.every((e) => Number.isInteger(e.startedAt))).toBe(true);
    const statuses = (report: ProofRun["report"]) =>
      Object.fromEntries(
        report.requirements
          .filter((r) => r.id !== "SSE-9")
          .map((r) => [r.id, `${r.status}: ${r.tests[0]?.name ?? ""}`]),
      );
    expect(statuses(judge.report())).toEqual(statuses(run.report));
    expect(brokenOf(judge.report())).toEqual(
      Object.fromEntries(Object.entries(run.broken).filter(([id]) => id !== "SSE-9")),
    );
  }
}, 60_000);
