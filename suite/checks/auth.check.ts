/**
 * Authentication (AUTH-1, AUTH-2).
 * Create cost: 11 at most — AUTH-1: 1 conversation + 8 refused create/stream attempts
 * (counted because a server that skips auth would process them); AUTH-2: 2 refused attempts.
 */
import { randomUUID } from "node:crypto";
import { SpecMessagePage } from "../../schemas/index.ts";
import { check } from "../harness/check.ts";
import { expect2xx, expectJson, expectNon2xx, expectSame, expectStatus, expectThat } from "../harness/expect.ts";
import type { HttpResult, Identity, RequestOptions, StreamResult, Target } from "../harness/types.ts";
import { startConversation, totalOf, trackIfCreated } from "./support/conversations.ts";
import { openStream, trackStream } from "./support/streams.ts";

interface BadCredentials {
  label: string;
  options: (target: Target) => RequestOptions;
}

const withKey = (target: Target, apiKey: string | null): Identity => ({ ...target.primary, apiKey });

/**
 * Four ways of not carrying a valid bearer key. The wrong-scheme case carries the real key,
 * so a server that ignores the scheme and reads whatever follows it is caught.
 */
const BAD_CREDENTIALS: readonly BadCredentials[] = [
  { label: "no Authorization header", options: (t) => ({ as: withKey(t, null) }) },
  { label: "an unknown bearer key", options: (t) => ({ as: withKey(t, `conf-unknown-${t.runId}`) }) },
  { label: "the Bearer scheme without a key", options: () => ({ authorization: "Bearer" }) },
  {
    label: "the right key under another scheme",
    options: (t) => ({ authorization: `Token ${t.primary.apiKey ?? ""}` }),
  },
];

/** The refused answer must not carry the conversation's content. */
function expectNoLeak(res: HttpResult | StreamResult, secret: string, context: string): void {
  const text = "text" in res ? res.text : (res.http?.text ?? res.events.map((e) => e.data).join("\n"));
  expectThat(!text.includes(secret), `${context}: the refused answer contains the conversation's message text`, res);
}

check(
  ["AUTH-1"],
  "requests without a valid bearer key are refused on every endpoint and change nothing",
  { creates: 1 + BAD_CREDENTIALS.length * 2 },
  async (target) => {
    const { conversationId, message } = await startConversation(target, "auth-owned");
    const before = await totalOf(target, conversationId);

    for (const bad of BAD_CREDENTIALS) {
      const options = bad.options(target);
      const body = { message: target.message("auth-refused"), conversation_id: conversationId };

      const created = await target.client.create({ ...options, body });
      trackIfCreated(target, created, target.primary);
      expectNon2xx(created, `create with ${bad.label}`);

      const streamed = await openStream(target, { ...options, body });
      expectNon2xx(streamed, `stream with ${bad.label}`);
      expectNoLeak(streamed, message, `stream with ${bad.label}`);

      const listed = await target.client.list(conversationId, options);
      expectNon2xx(listed, `list with ${bad.label}`);
      expectNoLeak(listed, message, `list with ${bad.label}`);
    }
    // Delete attempts last, so a delete that wrongly succeeds shows in the final listing.
    for (const bad of BAD_CREDENTIALS) {
      const deleted = await target.client.delete(conversationId, bad.options(target));
      expectNon2xx(deleted, `delete with ${bad.label}`);
    }

    const after = await target.client.list(conversationId);
    expect2xx(after, "listing the conversation after the refused attempts (it must still exist)");
    const page = expectJson(SpecMessagePage, after, "listing the conversation after the refused attempts");
    expectSame(page.total, before, "the conversation's total after refused create and stream attempts", after);
  },
);

check(
  ["AUTH-2"],
  "a request without a key is answered 401 with a Bearer challenge on every endpoint",
  { creates: 2 },
  async (target) => {
    const as = withKey(target, null);
    const unknownId = randomUUID();
    const created = await target.client.create({ as, body: { message: target.message("auth-401") } });
    trackIfCreated(target, created, target.primary);
    const streamed = await openStream(target, { as, body: { message: target.message("auth-401") } });
    trackStream(target, streamed);
    const answers: [string, HttpResult | StreamResult][] = [
      ["create", created],
      ["stream", streamed],
      ["list", await target.client.list(unknownId, { as })],
      ["delete", await target.client.delete(unknownId, { as })],
    ];
    for (const [operation, res] of answers) {
      expectStatus(res, 401, `${operation} without a key`);
      const challenge = res.headers["www-authenticate"] ?? "";
      expectThat(/(^|[\s,])Bearer(\s|,|$)/i.test(challenge), `${operation} without a key: expected WWW-Authenticate: Bearer, got "${challenge}"`, res);
    }
  },
);
