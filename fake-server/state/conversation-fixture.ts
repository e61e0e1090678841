/**
 * Conversations given whole (`POST /__fake/conversations`, the state file) and read back
 * (`GET /__fake/conversations/ID`), in one JSON shape: a client team can import a
 * 250-message conversation in one call, or replay one recorded from production.
 */
import { z } from "zod";
import { Uuid } from "../../schemas/index.ts";
import { asStoredCitations, ScriptedCitation } from "../answers/scripted-citation.ts";
import type { Clock } from "../runtime/clock.ts";
import { StoredConversation, StoredMessage, type ConversationStore } from "../conversations/store.ts";
import { formatTimestamp } from "../conversations/timestamps.ts";
import { ApiError } from "../http/api-error.ts";
import type { ApiKeyGrant } from "../access/keys.ts";
import { parseControlBody } from "../rules/control-body.ts";

const MAX_MESSAGES = 100_000;

const FixtureMessage = z.strictObject({
  /** Kept when given (a state file keeps every message's id); otherwise a new one. */
  id: Uuid.optional(),
  // "tool" too: the three-messages variant stores tool notes, and a state file carries them.
  role: z.enum(["user", "assistant", "tool"]),
  content: z.string().max(1_000_000),
  // Any JSON object, returned as given: the spec leaves a citation's fields open.
  citations: z.array(ScriptedCitation).max(1_000).optional(),
  created_at: z.iso.datetime({ offset: true }).optional(),
});

export const ConversationFixture = z.strictObject({
  agent: z.string().min(1).max(200),
  channel: z.string().min(1).max(200).optional(),
  api_key: z.string().min(1).optional(),
  id: Uuid.optional(),
  messages: z.array(FixtureMessage).max(MAX_MESSAGES),
});
export type ConversationFixture = z.input<typeof ConversationFixture>;

/** The channel a fixture's conversation belongs to; a 400 naming the field when no key could reach it. */
function channelOf(fixture: z.output<typeof ConversationFixture>, keys: ReadonlyMap<string, ApiKeyGrant>): string {
  const { agent, channel, api_key } = fixture;
  if (channel !== undefined && api_key !== undefined) {
    throw new ApiError(400, "invalid_request", "conversation: give channel or api_key, not both");
  }
  const grants = [...keys.values()].filter((grant) => grant.agents.has(agent));
  if (api_key !== undefined) {
    const grant = keys.get(api_key);
    if (grant === undefined)
      throw new ApiError(400, "invalid_request", "conversation: api_key is not one of the fake's keys");
    if (!grant.agents.has(agent))
      throw new ApiError(400, "invalid_request", `conversation: api_key does not grant agent ${JSON.stringify(agent)}`);
    return grant.channel;
  }
  if (grants.length === 0)
    throw new ApiError(
      400,
      "invalid_request",
      `conversation: agent ${JSON.stringify(agent)} is granted by none of the fake's keys`,
    );
  if (channel === undefined) return grants[0]?.channel ?? "";
  if (!grants.some((grant) => grant.channel === channel)) {
    throw new ApiError(
      400,
      "invalid_request",
      `conversation: channel ${JSON.stringify(channel)}: no key grants agent ${JSON.stringify(agent)} on it`,
    );
  }
  return channel;
}

/** Message times: as given (never going back), else one millisecond after the one before, the last no later than now. */
function stampsOf(messages: readonly z.output<typeof FixtureMessage>[], now: number): number[] {
  const stamps: number[] = [];
  let previous = now - messages.length;
  messages.forEach((message, index) => {
    const given = message.created_at === undefined ? undefined : Date.parse(message.created_at);
    if (given !== undefined && given < (stamps.at(-1) ?? Number.NEGATIVE_INFINITY)) {
      throw new ApiError(
        400,
        "invalid_request",
        `conversation: messages.${index}.created_at is earlier than the message before it; messages go oldest first`,
      );
    }
    const stamp = given ?? (stamps.length === 0 ? previous : (stamps.at(-1) ?? previous) + 1);
    stamps.push(stamp);
    previous = stamp;
  });
  return stamps;
}

/** Stores the conversation a fixture describes in `store`; its id must be free there. */
export function importConversation(
  body: unknown,
  store: ConversationStore,
  keys: ReadonlyMap<string, ApiKeyGrant>,
  clock: Clock,
): StoredConversation {
  const newId = () => store.newId();
  const fixture = parseControlBody(ConversationFixture, body, "conversation");
  const channel = channelOf(fixture, keys);
  const misplaced = fixture.messages.findIndex(
    (message) => message.citations !== undefined && message.role !== "assistant",
  );
  if (misplaced !== -1) {
    const index = misplaced;
    throw new ApiError(
      400,
      "invalid_request",
      `conversation: messages.${index}.citations: only assistant messages carry citations`,
    );
  }
  const id = fixture.id?.toLowerCase() ?? newId();
  if (store.has(id))
    throw new ApiError(
      409,
      "conversation_exists",
      `conversation: id ${id} is taken in this session; leave id out to get a new one`,
    );
  const stamps = stampsOf(fixture.messages, clock.now());
  const created = stamps[0] ?? clock.now();
  const conversation = new StoredConversation(id, fixture.agent, channel, created);
  conversation.messages = fixture.messages.map(
    (message, index) =>
      new StoredMessage(
        message.id?.toLowerCase() ?? newId(),
        message.role,
        message.content,
        stamps[index] ?? created,
        message.role === "assistant" ? asStoredCitations(message.citations ?? []) : undefined,
      ),
  );
  conversation.updatedAt = stamps.at(-1) ?? created;
  return store.admit(conversation);
}

/** A stored conversation in the fixture shape (its channel named, never a key). */
export function exportConversation(conversation: StoredConversation) {
  return {
    agent: conversation.agentId,
    channel: conversation.channel,
    id: conversation.id,
    messages: conversation.messages.map((message) => ({
      id: message.id,
      role: message.role,
      content: message.content,
      ...(message.role === "assistant" ? { citations: [...(message.citations ?? [])] } : {}),
      created_at: formatTimestamp(message.createdAt),
    })),
  };
}
