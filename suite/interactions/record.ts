/**
 * What an answer changes in the sequence's own knowledge (the client's, not the model's): the
 * conversations it started, continued, listed or deleted, the keys it used and their status,
 * the external references it sent, the cells it covered.
 */
import {
  canonicalJson,
  holdsWholeConversation,
  type CreateResult,
  type ListingValue,
  type Outcome,
} from "../model/operation.ts";
import { openKeyForms } from "../model/key-forms.ts";
import { VALIDATION_STATUSES } from "../model/step-create.ts";
import type { CreateRequest, Request } from "./commands.ts";
import type { KeyStatus, Session } from "./session.ts";

export function recordAnswer(
  session: Session,
  request: Request,
  outcome: Outcome<CreateResult | ListingValue | null>,
  lane: number,
  dropped = false,
): void {
  session.cover(request.cells);
  // A kind of text on an endpoint counts once a listing reads it back (ConversationRecord.unread).
  if (outcome.type === "ok") session.cover((request.acceptedCells ?? []).filter((cell) => !isStoredText(cell)));
  if (outcome.type === "refused" && request.kind === "create" && VALIDATION_STATUSES.has(outcome.status)) {
    // A shape the service may refuse is exercised by its refusal too: the model holds it to that answer.
    if (request.openShape !== undefined) session.cover([`inputs:${request.openShape}`]);
    // A body with no such shape refused with a key of a form the spec leaves open: the service limits keys.
    else for (const form of openKeyForms(request.key)) session.refusedKeyForms.add(form);
  }
  const conversation = request.kind === "create" ? undefined : session.conversation(request.conversationId);
  if (request.kind === "list") {
    if (outcome.type === "ok" && conversation !== undefined && request.who === conversation.owner) {
      const page = outcome.value as ListingValue;
      conversation.total = page.total;
      if (holdsWholeConversation(page)) session.cover(conversation.unread.splice(0));
    }
    return;
  }
  if (request.kind === "delete") {
    if (outcome.type === "ok" && conversation !== undefined && request.who === conversation.owner)
      conversation.deleted = true;
    return;
  }
  if (dropped && request.drop !== undefined) session.cover([`client:drop:${request.drop}`]);
  // A cancellation: its key is never sent with this payload again (a reuse with another is no retry).
  if (dropped && request.abandoned === true) session.cover(["client:cancel-without-retry"]);
  recordCreate(session, request, outcome as Outcome<CreateResult>, lane, dropped);
}

/**
 * A kind of text as one endpoint stored it (`inputs:message:four-byte@plain`): tried only once a
 * listing reads it back. At seed 23000 of astral-characters-as-question-marks the only astral text
 * the plain endpoint stored was deleted unlisted, and counted as tried, no other followed.
 */
const isStoredText = (cell: string) => /^inputs:message:[^@]+@/.test(cell);

function recordCreate(
  session: Session,
  request: CreateRequest,
  outcome: Outcome<CreateResult>,
  lane: number,
  dropped: boolean,
): void {
  const result = outcome.type === "ok" ? outcome.value : undefined;
  const continued = typeof request.body.conversation_id === "string" ? request.body.conversation_id : undefined;
  if (result !== undefined) {
    const identity = session.identity(request.who);
    if (identity !== undefined) session.target.track(result.conversationId, identity);
    const known = session.conversation(result.conversationId);
    const stored = (request.acceptedCells ?? []).filter(isStoredText);
    if (known === undefined)
      session.conversations.push({
        id: result.conversationId,
        owner: request.who,
        deleted: false,
        messages: [request.message],
        total: undefined,
        unread: stored,
      });
    else if (!request.replay && request.again === undefined) {
      known.messages.push(request.message);
      known.unread.push(...stored);
    }
    if (typeof request.body.external_reference === "string")
      session.references.push({
        value: request.body.external_reference,
        who: request.who,
        conversationId: result.conversationId,
        started: continued === undefined,
      });
  }
  const status: KeyStatus =
    outcome.type === "ok" ? "completed" : outcome.type === "unknown" ? "unknown-outcome" : "refused";
  const earlier = request.again ?? session.keyUse(request.key, request.who);
  if (earlier !== undefined) {
    // A key sent again: a replay or a retry tells what its first request did; a reuse changes nothing.
    const samePayload = canonicalJson(earlier.body) === canonicalJson(request.body);
    if (earlier.dropped && samePayload) earlier.retried = true;
    if (status === "completed" && JSON.stringify(earlier.body) === JSON.stringify(request.body))
      earlier.answeredAsSent.add(request.endpoint);
    if (samePayload && earlier.status !== "completed" && status === "completed") {
      earlier.status = "completed";
      earlier.conversationId = result?.conversationId ?? earlier.conversationId;
    }
    return;
  }
  session.keys.push({
    key: request.key,
    who: request.who,
    endpoint: request.endpoint,
    body: request.body,
    message: request.message,
    tag: request.tag,
    openShape: request.openShape,
    inputCells: request.acceptedCells ?? [],
    status,
    conversationId: result?.conversationId ?? continued,
    dropped,
    retried: false,
    answeredAsSent: new Set(),
    abandoned: request.abandoned === true,
    lane,
  });
}
