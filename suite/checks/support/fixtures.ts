/**
 * The run's shared conversations (suite/checks/runtime/shared-fixture.ts): built once, by the first
 * check that uses each, and then only read. Building records; it never judges, so a broken
 * target's answers reach the checks that judge them. Each exchange is followed by a settled
 * listing (the listing once it shows the exchange, or the last read after --settle-ms).
 *
 * - `smallConversation` (3 creates): a plain start, a plain continuation, a streamed
 *   continuation. The listing, plain-create and stream checks read it.
 * - `longConversation` (51 creates at most): grown past 100 messages, every fifth continuation
 *   streamed. The page-cap checks read it, and the retry check reads its growth.
 * - `refusalTarget` (1 create): a conversation that checks try to change in ways the target
 *   must refuse (no key, another scope, an invalid body); each re-reads it afterwards.
 */
import { sharedFixture } from "../runtime/shared-fixture.ts";
import type { HttpResult } from "../../http/types.ts";
import type { Target } from "../runtime/types.ts";
import { SpecResponseResult } from "../../../schemas/index.ts";
import { abandonedBySuite, MAX_PAGE_SIZE, referenceListing } from "./listing.ts";
import { listingGrownPast } from "./settled.ts";
import type { RecordedConversation, RecordedExchange } from "./recorded.ts";
import { openStream } from "./streams.ts";
import { streamConversationId } from "../../judgements/streams.ts";

function answeredId(http: HttpResult): string | undefined {
  const parsed = SpecResponseResult.safeParse(http.json);
  return parsed.success ? parsed.data.conversation_id : undefined;
}

/** Sends one exchange (plain or streamed) and reads the listing until it shows it. */
async function exchange(
  target: Target,
  kind: "plain" | "stream",
  label: string,
  conversationId: string | undefined,
  totalBefore: number,
  settleMs: number,
): Promise<RecordedExchange> {
  const message = target.message(label);
  const body = conversationId === undefined ? { message } : { message, conversation_id: conversationId };
  let answered: Pick<RecordedExchange, "http" | "stream" | "conversationId" | "attempts">;
  if (kind === "plain") {
    const http = await target.client.create({ body });
    answered = { http, conversationId: answeredId(http), attempts: http.attempts ?? 1 };
  } else {
    const stream = await openStream(target, { body });
    answered = { stream, conversationId: streamConversationId(stream), attempts: stream.attempts ?? 1 };
  }
  const id = conversationId ?? answered.conversationId;
  if (id === undefined)
    throw new Error(`the ${kind} create "${label}" named no conversation, so the shared conversation cannot be built`);
  // A continuation answered for another conversation (a broken target) left one to clean up too.
  if (answered.conversationId !== undefined && answered.conversationId !== conversationId)
    target.track(answered.conversationId);
  const listingAfter = await listingGrownPast(
    target,
    id,
    totalBefore,
    `listing after the ${kind} create "${label}"`,
    target.primary,
    settleMs,
  );
  return { kind, message, ...answered, totalBefore, listingAfter };
}

async function record(
  target: Target,
  label: string,
  kinds: readonly ("plain" | "stream")[],
  until?: (total: number) => boolean,
): Promise<RecordedConversation> {
  const first = await exchange(target, "plain", `${label}-0`, undefined, 0, target.settleMs);
  const conversationId = first.conversationId;
  if (conversationId === undefined) throw new Error(`the first create of the shared ${label} named no conversation`);
  const exchanges = [first];
  // A listing that never showed an exchange within --settle-ms is not waited for again in this
  // conversation: the checks judge what was recorded, and the run stays bounded.
  let settleMs = first.listingAfter.settled ? target.settleMs : 0;
  for (let i = 1; i < kinds.length; i++) {
    const total = exchanges.at(-1)?.listingAfter.page.total ?? 0;
    if (until?.(total) === true) break;
    const next = await exchange(target, kinds[i] ?? "plain", `${label}-${i}`, conversationId, total, settleMs);
    // A stream the suite abandoned may rightly never show: that says nothing of the listing's lag.
    if (!next.listingAfter.settled && !abandonedBySuite(next)) settleMs = 0;
    exchanges.push(next);
  }
  return { conversationId, exchanges, reference: await referenceListing(target, conversationId) };
}

export const smallConversation = sharedFixture("small conversation", 3, (target) =>
  record(target, "small", ["plain", "plain", "stream"]),
);

/** Enough exchanges for more than 100 messages even when each adds only two. */
const LONG_CONVERSATION_CREATES = 51;

export const longConversation = sharedFixture("long conversation", LONG_CONVERSATION_CREATES, (target) =>
  record(
    target,
    "long",
    Array.from({ length: LONG_CONVERSATION_CREATES }, (_, i) => (i % 5 === 4 ? "stream" : "plain")),
    (total) => total > MAX_PAGE_SIZE,
  ),
);

export const refusalTarget = sharedFixture("conversation for refused changes", 1, (target) =>
  record(target, "refusals", ["plain"]),
);
