/**
 * Deleting a conversation (DEL-1 … DEL-3).
 * Create cost: 4 at most — DEL-1: 1 + 1 continuation attempt, DEL-2: 0, DEL-3: 1 + 1 refused.
 * A successful delete may answer 200 with a body or 204 without one: only the status class is judged.
 */
import { randomUUID } from "node:crypto";
import { CONVERSATION_NOT_FOUND } from "../../schemas/index.ts";
import { check } from "../harness/check.ts";
import { expect2xx, expect4xx, expectErrorCode, expectStatus, expectThat, is2xx } from "../harness/expect.ts";
import { startConversation, trackIfCreated } from "./support/conversations.ts";

check(
  ["DEL-1"],
  "deleting a conversation is 2xx; afterwards it cannot be listed, a second delete is 404 conversation_not_found, and nothing of it comes back",
  { creates: 2 },
  async (target) => {
    const { conversationId, message } = await startConversation(target, "del-1");
    expect2xx(await target.client.delete(conversationId), "deleting the conversation");
    expect4xx(await target.client.list(conversationId), "listing the deleted conversation");
    const again = await target.client.delete(conversationId);
    expectStatus(again, 404, "deleting the conversation a second time");
    expectErrorCode(again, CONVERSATION_NOT_FOUND, "deleting the conversation a second time");
    // "Permanently": even where continuing the id is accepted (DEL-3 recommends a 404),
    // nothing of the deleted conversation may come back.
    const continued = await target.client.create({
      body: { message: target.message("del-1-after"), conversation_id: conversationId },
    });
    trackIfCreated(target, continued, target.primary);
    if (is2xx(continued.status)) {
      const listed = await target.client.list(conversationId);
      expectThat(!listed.text.includes(message), "the deleted conversation's message came back after its id was continued", continued, listed);
    }
  },
);

check(
  ["DEL-2"],
  "deleting an unknown conversation is 404 conversation_not_found",
  { creates: 0 },
  async (target) => {
    const res = await target.client.delete(randomUUID());
    expectStatus(res, 404, "deleting an unknown conversation");
    expectErrorCode(res, CONVERSATION_NOT_FOUND, "deleting an unknown conversation");
  },
);

check(
  ["DEL-3"],
  "a deleted conversation cannot be continued (404) and nothing of it comes back",
  { creates: 2 },
  async (target) => {
    const { conversationId } = await startConversation(target, "del-3");
    expect2xx(await target.client.delete(conversationId), "deleting the conversation");
    const continued = await target.client.create({
      body: { message: target.message("del-3-after"), conversation_id: conversationId },
    });
    trackIfCreated(target, continued, target.primary);
    expectStatus(continued, 404, "continuing the deleted conversation");
    expect4xx(await target.client.list(conversationId), "listing the deleted conversation after the attempt to continue it");
  },
);
