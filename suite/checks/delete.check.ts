/**
 * Deleting a conversation (DEL-1 … DEL-3).
 * Create cost: 1 — the conversation DEL-1 and DEL-3 share (deletedConversation, built by the
 * first of them to run). Each of the two also declares 1 create for continuing the deleted id,
 * which a conforming target refuses or answers without bringing anything back. DEL-2: 0.
 * A successful delete may answer 200 with a body or 204 without one: only the status class is judged.
 */
import { randomUUID } from "node:crypto";
import { CONVERSATION_NOT_FOUND } from "../../schemas/index.ts";
import { check } from "./runtime/check.ts";
import { expect2xx, expect4xx, expectErrorCode, expectStatus, expectThat, is2xx, is4xx } from "../judgements/expect.ts";
import { settle, type Settled } from "./runtime/settling.ts";
import { sharedFixture } from "./runtime/shared-fixture.ts";
import type { HttpResult } from "../http/types.ts";
import type { Target } from "./runtime/types.ts";
import { startConversation, trackIfCreated } from "./support/conversations.ts";
import { afterQuietWindow, listingGrownPast } from "./support/settled.ts";

interface DeletedConversation {
  conversationId: string;
  /** The message it was started with. */
  message: string;
  deleted: HttpResult;
  /** The listing once it refused the deleted conversation, or the last read after --settle-ms. */
  listed: Settled<HttpResult>;
  deletedAgain: HttpResult;
}

/**
 * A conversation deleted, then listed and deleted again; it records, the checks judge. Nothing
 * here continues the deleted id, so what DEL-1 judges was read before DEL-3's attempt,
 * whichever of them runs first.
 */
const deletedConversation = sharedFixture("deleted conversation", 1, async (target): Promise<DeletedConversation> => {
  const { conversationId, message } = await startConversation(target, "deleted");
  // Listed first, so that "cannot be listed" afterwards is the delete's doing, not write-behind's.
  await listingGrownPast(target, conversationId, 0, "listing the conversation before deleting it");
  const deleted = await target.client.delete(conversationId);
  // A service may drop it from its read model a moment after answering the delete.
  const listed = await settle(
    () => target.client.list(conversationId),
    (http) => is4xx(http.status),
    target.settleMs,
  );
  const deletedAgain = await target.client.delete(conversationId);
  return { conversationId, message, deleted, listed, deletedAgain };
});

/** Sends one exchange naming the deleted conversation; whatever it creates is cleaned up. */
async function continueDeleted(target: Target, conversationId: string, label: string): Promise<HttpResult> {
  const continued = await target.client.create({
    body: { message: target.message(label), conversation_id: conversationId },
  });
  trackIfCreated(target, continued, target.primary);
  return continued;
}

check(
  ["DEL-1"],
  "deleting a conversation is 2xx; afterwards it cannot be listed, a second delete is 404 conversation_not_found, and nothing of it comes back",
  { creates: 1, uses: [deletedConversation], smoke: true },
  async (target) => {
    const { conversationId, message, deleted, listed, deletedAgain } = await target.shared(deletedConversation);
    expect2xx(deleted, "deleting the conversation");
    const waited = listed.ready ? "" : ` (waited --settle-ms ${target.settleMs} ms for the delete to show)`;
    expect4xx(listed.value, `listing the deleted conversation${waited}`);
    expectStatus(deletedAgain, 404, "deleting the conversation a second time");
    expectErrorCode(deletedAgain, CONVERSATION_NOT_FOUND, "deleting the conversation a second time");
    // "Permanently": even where continuing the id is accepted (DEL-3 recommends a 404),
    // nothing of the deleted conversation may come back.
    const continued = await continueDeleted(target, conversationId, "del-1-after");
    if (is2xx(continued.status)) {
      await afterQuietWindow(target);
      const relisted = await target.client.list(conversationId);
      expectThat(
        !relisted.text.includes(message),
        "the deleted conversation's message came back after its id was continued",
        continued,
        relisted,
      );
    }
  },
);

check(
  ["DEL-2"],
  "deleting an unknown conversation is 404 conversation_not_found",
  { creates: 0, smoke: true },
  async (target) => {
    const res = await target.client.delete(randomUUID());
    expectStatus(res, 404, "deleting an unknown conversation");
    expectErrorCode(res, CONVERSATION_NOT_FOUND, "deleting an unknown conversation");
  },
);

check(
  ["DEL-3"],
  "a deleted conversation cannot be continued (404) and nothing of it comes back",
  { creates: 1, uses: [deletedConversation] },
  async (target) => {
    const { conversationId, deleted } = await target.shared(deletedConversation);
    expect2xx(deleted, "deleting the conversation");
    const continued = await continueDeleted(target, conversationId, "del-3-after");
    expectStatus(continued, 404, "continuing the deleted conversation");
    expect4xx(
      await target.client.list(conversationId),
      "listing the deleted conversation after the attempt to continue it",
    );
  },
);
