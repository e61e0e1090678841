/**
 * Authentication (AUTH-1, AUTH-2).
 * Create cost: none of their own on a conforming target. Both try their refused changes on the
 * run's shared refusalTarget conversation (1 create, built by the first check that uses it) and
 * declare only what a target that skips auth would accept: AUTH-1 8 create/stream attempts,
 * AUTH-2 2.
 */
import { SpecMessagePage } from "../../schemas/index.ts";
import { check } from "./runtime/check.ts";
import { expect2xx, expectJson, expectNon2xx, expectSame, expectStatus, expectThat } from "../judgements/expect.ts";
import type { HttpResult, Identity, RequestOptions, StreamResult } from "../http/types.ts";
import type { Target } from "./runtime/types.ts";
import { totalOf, trackIfCreated } from "./support/conversations.ts";
import { refusalTarget } from "./support/fixtures.ts";
import { afterQuietWindow } from "./support/settled.ts";
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
function expectNoLeak(res: HttpResult | StreamResult, messages: readonly string[], context: string): void {
  const text = "text" in res ? res.text : (res.http?.text ?? res.events.map((e) => e.data).join("\n"));
  expectThat(
    !messages.some((m) => text.includes(m)),
    `${context}: the refused answer contains the conversation's message text`,
    res,
  );
}

check(
  ["AUTH-1"],
  "requests without a valid bearer key are refused on every endpoint and change nothing",
  { creates: BAD_CREDENTIALS.length * 2, uses: [refusalTarget], smoke: true },
  async (target) => {
    const { conversationId, exchanges } = await target.shared(refusalTarget);
    const messages = exchanges.map((e) => e.message);
    // Read now, not from the fixture: earlier checks may have changed it legitimately.
    const before = await totalOf(target, conversationId);

    for (const bad of BAD_CREDENTIALS) {
      const options = bad.options(target);
      const body = { message: target.message("auth-refused"), conversation_id: conversationId };

      const created = await target.client.create({ ...options, body });
      trackIfCreated(target, created, target.primary);
      expectNon2xx(created, `create with ${bad.label}`);

      const streamed = await openStream(target, { ...options, body });
      trackStream(target, streamed);
      expectNon2xx(streamed, `stream with ${bad.label}`);
      expectNoLeak(streamed, messages, `stream with ${bad.label}`);

      const listed = await target.client.list(conversationId, options);
      expectNon2xx(listed, `list with ${bad.label}`);
      expectNoLeak(listed, messages, `list with ${bad.label}`);
    }
    // Delete attempts last, so a delete that wrongly succeeds shows in the final listing.
    for (const bad of BAD_CREDENTIALS) {
      const deleted = await target.client.delete(conversationId, bad.options(target));
      expectNon2xx(deleted, `delete with ${bad.label}`);
    }

    // A write-behind service would show a wrongly applied change only after its lag.
    await afterQuietWindow(target);
    const after = await target.client.list(conversationId);
    expect2xx(after, "listing the conversation after the refused attempts (it must still exist)");
    const page = expectJson(SpecMessagePage, after, "listing the conversation after the refused attempts");
    expectSame(page.total, before, "the conversation's total after refused create and stream attempts", after);
  },
);

check(
  ["AUTH-2"],
  "a request without a key is answered 401 with a Bearer challenge on every endpoint",
  { creates: 2, uses: [refusalTarget] },
  async (target) => {
    const { conversationId } = await target.shared(refusalTarget);
    const as = withKey(target, null);
    const body = () => ({ message: target.message("auth-401"), conversation_id: conversationId });
    const created = await target.client.create({ as, body: body() });
    trackIfCreated(target, created, target.primary);
    const streamed = await openStream(target, { as, body: body() });
    trackStream(target, streamed);
    // The conversation exists, so a refusal cannot be a mere "not found".
    const answers: [string, HttpResult | StreamResult][] = [
      ["create", created],
      ["stream", streamed],
      ["list", await target.client.list(conversationId, { as })],
      ["delete", await target.client.delete(conversationId, { as })],
    ];
    for (const [operation, res] of answers) {
      expectStatus(res, 401, `${operation} without a key`);
      const challenge = res.headers["www-authenticate"] ?? "";
      expectThat(
        /(^|[\s,])Bearer(\s|,|$)/i.test(challenge),
        `${operation} without a key: expected WWW-Authenticate: Bearer, got "${challenge}"`,
        res,
      );
    }
  },
);
