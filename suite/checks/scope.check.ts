/**
 * Isolation between agents and channels (SCOPE-1 … SCOPE-4).
 * Create cost: none of their own on a conforming target. Every check tries its refused change
 * on the run's shared refusalTarget conversation (1 create, built by the first check that uses
 * it). Each SCOPE-4 check declares 1 create: continuing from another scope may legitimately
 * be answered with a new conversation of that scope.
 * The other agent shares the primary key; the other key reaches the same agent id through
 * another scope, so isolation broken only across channels is caught while agents look intact.
 */
import { CONVERSATION_NOT_FOUND } from "../../schemas/index.ts";
import { check } from "./runtime/check.ts";
import { expectErrorCode, expectNon2xx, expectSame, expectStatus, expectThat } from "../judgements/expect.ts";
import type { HttpResult, Identity } from "../http/types.ts";
import type { Target } from "./runtime/types.ts";
import { listPage, totalOf, trackIfCreated } from "./support/conversations.ts";
import { sameId } from "../judgements/answers.ts";
import { refusalTarget } from "./support/fixtures.ts";
import { afterQuietWindow } from "./support/settled.ts";

/** The other identity a check needs; `needs` guarantees it, this makes the type say so. */
function other(target: Target, which: "otherAgent" | "otherKey"): Identity {
  const identity = target[which];
  expectThat(identity !== undefined, `the ${which} identity is not configured`);
  return identity;
}

/** The shared conversation and its owner's total, read now: earlier checks may have changed it legitimately. */
async function refusalConversation(target: Target) {
  const { conversationId, exchanges } = await target.shared(refusalTarget);
  return { conversationId, messages: exchanges.map((e) => e.message), before: await totalOf(target, conversationId) };
}

/** The owner still sees the conversation with the same total, also once a write-behind lag has passed. */
async function expectIntact(
  target: Target,
  conversationId: string,
  total: number,
  context: string,
  ...evidence: HttpResult[]
) {
  await afterQuietWindow(target);
  const after = await listPage(target, conversationId);
  expectSame(after.page.total, total, `${context}: the owner's total`, ...evidence, after.http);
}

function expectNoLeak(res: HttpResult, messages: readonly string[], context: string): void {
  expectThat(
    !messages.some((m) => res.text.includes(m)),
    `${context}: the answer contains the conversation's message text`,
    res,
  );
}

check(
  ["SCOPE-1"],
  "another agent cannot list the conversation and learns nothing of it",
  { creates: 0, needs: ["otherAgent"], uses: [refusalTarget], smoke: true },
  async (target) => {
    const { conversationId, exchanges } = await target.shared(refusalTarget);
    const res = await target.client.list(conversationId, { as: other(target, "otherAgent") });
    expectNon2xx(res, "listing through the other agent");
    expectNoLeak(
      res,
      exchanges.map((e) => e.message),
      "listing through the other agent",
    );
  },
);

check(
  ["SCOPE-2"],
  "deleting through another agent is 404 conversation_not_found and the conversation survives",
  { creates: 0, needs: ["otherAgent"], uses: [refusalTarget], smoke: true },
  async (target) => {
    const { conversationId, before } = await refusalConversation(target);
    const res = await target.client.delete(conversationId, { as: other(target, "otherAgent") });
    expectStatus(res, 404, "deleting through the other agent");
    expectErrorCode(res, CONVERSATION_NOT_FOUND, "deleting through the other agent");
    await expectIntact(target, conversationId, before, "after the other agent's delete", res);
  },
);

check(
  ["SCOPE-3"],
  "a key of another scope can neither list nor delete the conversation, and it survives",
  { creates: 0, needs: ["otherApiKey"], uses: [refusalTarget], smoke: true },
  async (target) => {
    const { conversationId, messages, before } = await refusalConversation(target);
    const as = other(target, "otherKey");
    const listed = await target.client.list(conversationId, { as });
    expectNon2xx(listed, "listing with the other key");
    expectNoLeak(listed, messages, "listing with the other key");
    const deleted = await target.client.delete(conversationId, { as });
    expectStatus(deleted, 404, "deleting with the other key");
    expectErrorCode(deleted, CONVERSATION_NOT_FOUND, "deleting with the other key");
    await expectIntact(target, conversationId, before, "after the other key's list and delete", listed, deleted);
  },
);

/** Continuing the conversation from another scope never appends to it. */
async function expectNoForeignAppend(target: Target, as: Identity, label: string): Promise<void> {
  const { conversationId, before } = await refusalConversation(target);
  const res = await target.client.create({
    as,
    body: { message: target.message(`scope-4-${label}-intruder`), conversation_id: conversationId },
  });
  const answered = (res.json as { conversation_id?: unknown } | undefined)?.conversation_id;
  expectThat(
    !(typeof answered === "string" && sameId(answered, conversationId)),
    `continuing through the ${label} answered for the owner's conversation ${conversationId}`,
    res,
  );
  // Only now: the owner's conversation must not be tracked a second time under the other identity.
  trackIfCreated(target, res, as);
  await expectIntact(target, conversationId, before, `after continuing through the ${label}`, res);
}

check(
  ["SCOPE-4"],
  "continuing the conversation through another agent never appends to it",
  { creates: 1, needs: ["otherAgent"], uses: [refusalTarget], smoke: true },
  async (target) => {
    await expectNoForeignAppend(target, other(target, "otherAgent"), "other agent");
  },
);

check(
  ["SCOPE-4"],
  "continuing the conversation with a key of another scope never appends to it",
  { creates: 1, needs: ["otherApiKey"], uses: [refusalTarget], smoke: true },
  async (target) => {
    await expectNoForeignAppend(target, other(target, "otherKey"), "other key");
  },
);
