import { ResponseResult, type FakeErrorCode } from "../../schemas/index.ts";
import type { Answer } from "../answers/engine.ts";
import type { AppContext } from "../context.ts";
import { successStatus } from "../http/respond.ts";
import type { StoredOutcome } from "../idempotency/store.ts";
import type { FreshExchange } from "./prepare.ts";

/** The id of the conversation the exchange belongs to, starting a new (empty) one if needed. */
export function conversationFor(ctx: AppContext, exchange: FreshExchange): string {
  if (exchange.conversationId !== undefined) return exchange.conversationId;
  return ctx.conversations.open(exchange.caller.agentId, exchange.caller.grant.channel).id;
}

function resultOf(conversationId: string, answer: Answer): ResponseResult {
  return { conversation_id: conversationId, response: answer.text, citations: [...answer.citations] };
}

/**
 * The serialised result, exactly as `JSON.stringify(resultOf(…))` writes it. The part after
 * the id depends on the answer only, and the engine shares one answer object per text, so
 * that part is serialised once per answer rather than once per exchange.
 */
const serialisedAnswers = new WeakMap<Answer, string>();
export function serialisedResult(conversationId: string, answer: Answer): string {
  let tail = serialisedAnswers.get(answer);
  if (tail === undefined) {
    tail = `,"response":${JSON.stringify(answer.text)},"citations":${JSON.stringify(answer.citations)}}`;
    serialisedAnswers.set(answer, tail);
  }
  return `{"conversation_id":${JSON.stringify(conversationId)}${tail}`;
}

/** The tool note the three-messages variant stores between question and answer. */
function noteOf(answer: Answer): string {
  return `(tool) looked up ${answer.citations.length} help-center article(s)`;
}

/**
 * What an answered exchange leaves for its replays: the id and the (shared, frozen) answer,
 * written out when a replay reads `body`, the same bytes every time. A record so keeps no
 * text of its own: the store grows by an id per exchange, not by a copy of the answer.
 */
class AnsweredOutcome {
  readonly kind = "answered" as const;

  constructor(
    readonly status: number,
    private readonly conversationId: string,
    private readonly answer: Answer,
  ) {}

  get body(): string {
    return serialisedResult(this.conversationId, this.answer);
  }
}

/** A committed result, with the text stored for its replays (a plain answer sends that same text). */
export interface Committed {
  readonly result: ResponseResult;
  readonly text: string;
}

/**
 * The exchange took place: both messages are appended (unless the conversation was deleted
 * meanwhile, or a mutant says `append: false`) and the serialised result is stored for
 * replays under the reserved key.
 */
export function commitAnswered(
  ctx: AppContext,
  exchange: FreshExchange,
  conversationId: string,
  answer: Answer,
  append = true,
): Committed {
  if (append) {
    const note = ctx.behavior.exchangeNote ? noteOf(answer) : undefined;
    ctx.conversations.appendExchange(conversationId, exchange.request.message, answer.text, answer.citations, note);
  }
  const result = resultOf(conversationId, answer);
  const text = serialisedResult(conversationId, answer);
  ctx.idempotency.complete(exchange.reservation, new AnsweredOutcome(successStatus(ctx.behavior, "create"), conversationId, answer));
  return { result, text };
}

/**
 * The stream ended in an `error` event: no message is appended, and replays of the key
 * give the same failure rather than running the exchange again.
 */
export function commitFailed(
  ctx: AppContext,
  exchange: FreshExchange,
  conversationId: string,
  answer: Answer,
  failure: { deltasBeforeError: number; code: FakeErrorCode; message: string },
): void {
  ctx.idempotency.complete(exchange.reservation, {
    kind: "failed",
    body: JSON.stringify(resultOf(conversationId, answer)),
    ...failure,
  });
}

/** The exchange did not take place (unexpected error, shutdown): its key is free again. */
export function abandon(ctx: AppContext, exchange: FreshExchange): void {
  ctx.idempotency.release(exchange.reservation);
}

/** The stored result behind a replay. */
export function storedResult(outcome: StoredOutcome): ResponseResult {
  return ResponseResult.parse(JSON.parse(outcome.body));
}
