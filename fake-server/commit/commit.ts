/**
 * Stage 10 of an answered exchange: its messages appended and its result stored under its key for
 * replays; or the failure its replays repeat, or its key freed when it did not take place. A stored
 * result shares the engine's answer instead of copying its text.
 */
import type { FakeErrorCode, ResponseResult } from "../../schemas/index.ts";
import type { Answer } from "../answers/engine.ts";
import type { AppContext } from "../context.ts";
import { overloaded } from "../deployment/overload.ts";
import type { ApiError } from "../http/api-error.ts";
import { successStatus } from "../http/respond.ts";
import { rememberReference } from "../exchange/external-reference.ts";
import type { FreshExchange } from "../exchange/prepare.ts";
import { storedUserText } from "./message-column.ts";
import { mergedIntoSameText } from "./same-text-upsert.ts";

/** The id of the conversation the exchange belongs to, starting a new (empty) one if needed. */
export function conversationFor(ctx: AppContext, exchange: FreshExchange): string {
  if (exchange.conversationId !== undefined) return exchange.conversationId;
  const { id } = ctx.conversations.open(exchange.caller.agentId, exchange.caller.grant.channel);
  // A mutant takes the reference for the conversation's natural key.
  rememberReference(ctx, exchange.caller, exchange.request, id);
  return id;
}

function resultOf(conversationId: string, answer: Answer): ResponseResult {
  return { conversation_id: conversationId, response: answer.text, citations: [...answer.citations] };
}

/** The part of a serialised result that depends on the answer only, as text and as UTF-8. */
interface SerialisedTail {
  readonly text: string;
  readonly bytes: Buffer;
}

/**
 * The engine shares one answer object per text, so the part after the id is serialised and
 * encoded once per answer rather than once per exchange.
 */
const serialisedTails = new WeakMap<Answer, SerialisedTail>();
function tailOf(answer: Answer): SerialisedTail {
  let tail = serialisedTails.get(answer);
  if (tail === undefined) {
    const text = `,"response":${JSON.stringify(answer.text)},"citations":${JSON.stringify(answer.citations)}}`;
    tail = { text, bytes: Buffer.from(text, "utf8") };
    serialisedTails.set(answer, tail);
  }
  return tail;
}

/**
 * A serialised result, exactly as `JSON.stringify(resultOf(…))` writes it: the head with the
 * id, then the answer's shared tail.
 */
function headOf(conversationId: string): string {
  return `{"conversation_id":${JSON.stringify(conversationId)}`;
}

export function serialisedResult(conversationId: string, answer: Answer): string {
  return headOf(conversationId) + tailOf(answer).text;
}

/** The tool note the three-messages variant stores between question and answer. */
function noteOf(answer: Answer): string {
  return `(tool) looked up ${answer.citations.length} help-center article(s)`;
}

/**
 * What an answered exchange leaves for its replays: the id and the (shared, frozen) answer,
 * written out when a replay reads `body`, the same bytes every time. A record so keeps no
 * text of its own: the store grows by an id per exchange, not by a copy of the answer.
 * The plain answer to the exchange itself is sent from it too, as `head` and `tailBytes`:
 * no exchange builds or encodes the whole text.
 */
export class AnsweredOutcome {
  /** On the prototype, not a field: one less slot in every stored record. */
  get kind(): "answered" {
    return "answered";
  }

  constructor(
    readonly status: number,
    private readonly conversationId: string,
    private readonly answer: Answer,
  ) {}

  get body(): string {
    return serialisedResult(this.conversationId, this.answer);
  }

  /** The body up to the answer's shared tail. */
  get head(): string {
    return headOf(this.conversationId);
  }

  /** The rest of the body: the answer's tail, encoded once per answer. */
  get tailBytes(): Buffer {
    return tailOf(this.answer).bytes;
  }

  /** Built on demand: only the variants and mutants that alter the result read it. */
  get result(): ResponseResult {
    return resultOf(this.conversationId, this.answer);
  }
}

/**
 * The exchange took place: both messages are appended (unless the conversation was deleted
 * meanwhile, or a mutant says `append: false` or stores no stream) and the serialised result
 * is stored for replays under the reserved key.
 */
export function commitAnswered(
  ctx: AppContext,
  exchange: FreshExchange,
  conversationId: string,
  answer: Answer,
  append = true,
  answerKept = true,
): AnsweredOutcome {
  if (append && (exchange.operation !== "stream" || ctx.behavior.broken.streamStored))
    appendAnswered(ctx, exchange, conversationId, answer, answerKept);
  const outcome = new AnsweredOutcome(successStatus(ctx.behavior, "create"), conversationId, answer);
  ctx.idempotency.complete(exchange.reservation, outcome);
  return outcome;
}

/**
 * Appends the exchange's messages (and, under the three-messages variant, the tool note between
 * them). Mutants alter the stored user text, or merge the exchange into one of the same text.
 */
function appendAnswered(
  ctx: AppContext,
  exchange: FreshExchange,
  conversationId: string,
  answer: Answer,
  answerKept = true,
): void {
  const userText = storedUserText(ctx.behavior.broken, exchange.operation, exchange.request.message);
  if (mergedIntoSameText(ctx, exchange.operation, conversationId, userText)) return;
  // Mutant only (commit/answer-watch.ts): the question stored, its answer lost with the client.
  if (!answerKept) {
    ctx.conversations.appendQuestion(conversationId, userText);
    return;
  }
  const note = ctx.behavior.exchangeNote ? noteOf(answer) : undefined;
  ctx.conversations.appendExchange(conversationId, userText, answer.text, answer.citations, note);
}

/**
 * Mutant only (`refuseAfterCommit`): the exchange is stored, then its key is freed as if it
 * had never run, and the 503 to answer is returned, so a retry under the same key runs it again.
 */
export function refusedAfterCommit(
  ctx: AppContext,
  exchange: FreshExchange,
  conversationId: string,
  answer: Answer,
): ApiError {
  appendAnswered(ctx, exchange, conversationId, answer);
  ctx.idempotency.release(exchange.reservation);
  return overloaded();
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
