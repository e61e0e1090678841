/**
 * A create or a stream, stepped in one world: a replay, a reused key with another payload, or
 * a fresh exchange (continuing a conversation or starting one). Returns the worlds it may lead
 * to (two when its outcome is unknown) or the violation that rules this world out.
 */
import type { RequirementId } from "../../requirements/catalog.ts";
import { sameConversation, sameResult, type CreateOp, type CreateResult } from "./operation.ts";
import { violation, words, type Words } from "./violation.ts";
import {
  arrivedLate,
  conversationKey,
  keyId,
  withConversation,
  withKey,
  withRecordedKey,
  withSuspect,
  type ConversationState,
  type KeyRecord,
  type World,
} from "./world.ts";
import { afterOverlapping, isBusy, type Step, type StepContext } from "./step.ts";
import { mayRefuseKey } from "./key-forms.ts";
import { exchangeRequirement, idempotencyRequirement } from "./requirements.ts";

const describeResult = (r: CreateResult) =>
  `conversation ${r.conversationId}, answer ${JSON.stringify(r.text.slice(0, 80))}`;

/** How much of an answer a violation quotes, and how much before the first character two answers differ in. */
const QUOTED = 80;
const BEFORE_DIFFERENCE = 20;

/**
 * Two results that should be one, each quoted where they differ: two answers of one help centre
 * often share their first 80 characters, and quoting both from the start printed the same words
 * as "answered" and as "expected". Citations are named when only they differ.
 */
function describeApart(actual: CreateResult, expected: CreateResult): [string, string] {
  const sameConversationAndText =
    sameConversation(actual.conversationId, expected.conversationId) && actual.text === expected.text;
  if (sameConversationAndText)
    return [
      `conversation ${actual.conversationId}, the same answer, citations ${actual.citations}`,
      `conversation ${expected.conversationId}, citations ${expected.citations}`,
    ];
  let at = 0;
  while (at < actual.text.length && actual.text[at] === expected.text[at]) at++;
  if (at < QUOTED - BEFORE_DIFFERENCE) return [describeResult(actual), describeResult(expected)];
  const from = at - BEFORE_DIFFERENCE;
  const quote = (r: CreateResult) =>
    `conversation ${r.conversationId}, answer differing from character ${at + 1}: …${JSON.stringify(r.text.slice(from, from + QUOTED))}`;
  return [quote(actual), quote(expected)];
}

export function stepCreate(world: World, op: CreateOp, context: StepContext): Step {
  const shaped = heldToShape(world, op, context);
  if ("violation" in shaped) return shaped;
  return stepShaped(shaped.world, op, context);
}

function stepShaped(world: World, op: CreateOp, context: StepContext): Step {
  if (op.key !== null) {
    // Keys scoped per endpoint see only their own endpoint's records (keyScopeChoices, service.ts, has split an undecided world).
    const own = world.keys.get(keyId(op.who, op.key, op.endpoint));
    const record = own ?? (world.keyScope === "per-endpoint" ? undefined : world.keys.get(keyId(op.who, op.key)));
    if (record !== undefined) {
      const raced = context.overlapping.has(record.op);
      const met = (w: World) =>
        record.payload === op.payload ? stepReplay(w, op, record, raced) : stepConflict(w, op, record);
      // The other endpoint's record answers this request only where keys are shared. A record
      // that arrived late (a dropped stream that took effect after all) bypasses the split at the
      // search's entry, so the world commits to a reading here, and the other reading is stepped
      // too: left undecided, a later request took the per-endpoint reading with this one's
      // record missing, and a replay answered otherwise passed as a fresh request.
      if (own === undefined && world.keyScope === "unknown")
        return eitherStep(met({ ...world, keyScope: "shared" }), [
          stepShaped({ ...world, keyScope: "per-endpoint" }, op, context),
        ]);
      return met(world);
    }
  }
  const earlier = op.key === null ? undefined : world.indeterminate.get(keyId(op.who, op.key));
  const fresh = conflictOnOtherEndpoint(world, op) ? { ...op, exclusive: true } : op;
  const step =
    fresh.conversationId === null
      ? stepNewConversation(world, fresh, context)
      : stepContinuation(world, fresh, context);
  if (earlier === undefined) return step;
  const retried: Step =
    "violation" in step
      ? step
      : { ...step, worlds: step.worlds.map((w) => retriedAfterUnknown(w, op, earlier, context)) };
  // Or the first request took effect after all, unseen so far (a listing that lags, a stream the
  // client left): this one meets its record, a replay or a conflict.
  return eitherStep(
    retried,
    arrivedLate(world, earlier).map((w) => stepShaped(w, op, context)),
  );
}

/**
 * In a world that scopes keys per endpoint, a 409 to a key the other endpoint holds with another
 * payload: the service answered as if it shares the key. Traffic excuses a fresh key's 409 by a
 * request nobody saw (notNow); here the other endpoint's record explains it, so that excuse is not
 * taken, and the reading the service contradicted goes. Kept, it explained away a later race of
 * one key on both endpoints that the service ran twice (IDEM-5), which the property, having seen
 * the same 409, failed.
 */
function conflictOnOtherEndpoint(world: World, op: CreateOp): boolean {
  if (op.key === null || world.keyScope !== "per-endpoint") return false;
  if (op.outcome.type !== "refused" || op.outcome.status !== 409) return false;
  const other = world.keys.get(keyId(op.who, op.key, op.endpoint === "plain" ? "stream" : "plain"));
  return other !== undefined && other.payload !== op.payload;
}

/** Every world any of the steps leads to; when none leads anywhere, the first step's violation. */
function eitherStep(first: Step, others: readonly Step[]): Step {
  const steps = [first, ...others].filter((s) => !("violation" in s));
  if (steps.length === 0) return first;
  const worlds = steps.flatMap((s) => ("violation" in s ? [] : s.worlds));
  const warnings = steps.flatMap((s) => ("violation" in s ? [] : (s.warnings ?? [])));
  return warnings.length === 0 ? { worlds } : { worlds, warnings };
}

/** The statuses with which a service refuses a body for what it is. */
export const VALIDATION_STATUSES: ReadonlySet<number> = new Set([400, 413, 415, 422]);

/** Whether the create was refused as a service may refuse a key of a form the spec leaves open. */
const refusedForItsKey = (op: CreateOp, context: StepContext) =>
  op.outcome.type === "refused" &&
  VALIDATION_STATUSES.has(op.outcome.status) &&
  op.key !== null &&
  mayRefuseKey(op.key, context.keysTaken);

/**
 * A shape the spec leaves open (open-shapes in operation.ts) binds the service once it answered
 * it: what it accepted once it accepts again for the same caller, on either endpoint, and what
 * it refused it refuses.
 */
function heldToShape(
  world: World,
  op: CreateOp,
  context: StepContext,
): { readonly world: World } | { readonly violation: ReturnType<typeof violation> } {
  const shape = op.openShape;
  const outcome = op.outcome;
  // Only a refusal that judges the body (invalid, too large) says anything of its shape; one whose
  // key is of a form a service may refuse may have judged the key.
  if (
    shape === undefined ||
    outcome.type === "unknown" ||
    (outcome.type === "refused" && (!VALIDATION_STATUSES.has(outcome.status) || refusedForItsKey(op, context)))
  )
    return { world };
  const accepted = outcome.type === "ok";
  // Per caller: another agent may validate its requests by other rules.
  const id = `${op.who} ${shape}`;
  const shown = world.shapes.get(id);
  if (shown === undefined)
    return { world: { ...world, shapes: new Map([...world.shapes, [id, { accepted, op: op.index }]]) } };
  if (shown.accepted === accepted) return { world };
  const requirement = shape.startsWith("message:") ? (op.endpoint === "stream" ? "SSE-1" : "RESP-1") : "RESP-6";
  const answered = accepted ? `accepted it (${outcome.status})` : `refused it (${outcome.status})`;
  return {
    violation: violation(
      requirement,
      words`#${op.index} sent a body of shape ${shape} on the ${op.endpoint} endpoint and the service ${answered}, though it ${shown.accepted ? "accepted" : "refused"} that shape at #${shown.op}`,
      [shown.op, op.index],
      words`${shown.accepted ? "2xx" : "a refusal (400, 413, 415 or 422)"}, as at #${shown.op}: this service ${shown.accepted ? "accepts" : "refuses"} that shape`,
    ),
  };
}

/**
 * A key sent again after its first request's outcome was unknown, in the world where that
 * request did not take effect: should both show in the listing, the first was still running.
 */
function retriedAfterUnknown(world: World, op: CreateOp, earlier: number, context: StepContext): World {
  const result = op.outcome.type === "ok" ? op.outcome.value : undefined;
  const id = result?.conversationId ?? op.conversationId;
  // A refused retry took no effect: the first may still arrive late (a 409 in use even says it was running).
  if (earlier === op.index || id === null || op.outcome.type === "refused") return world;
  // Sent while the first was still unanswered, they raced (IDEM-5); sent after, it is a replay that ran again.
  const requirement = context.overlapping.has(earlier) ? "IDEM-5" : idempotencyRequirement(op, "consumed");
  // The first may no longer arrive late as an exchange of its own: with this one, that would be the key run twice.
  const late = new Map(
    [...world.late]
      .map(([conversation, exchanges]) => [conversation, exchanges.filter((e) => e.op !== earlier)] as const)
      .filter(([, exchanges]) => exchanges.length > 0),
  );
  return withSuspect({ ...world, late }, id, {
    op: earlier,
    message: op.message,
    requirement,
    why: words`#${op.index} sent the key of #${earlier} again, whose outcome was unknown, and both took effect`,
  });
}

/** In the world where a create of unknown outcome did not take effect, its key may still be running. */
function notTakenEffect(world: World, op: CreateOp): World {
  if (op.key === null) return world;
  return { ...world, indeterminate: new Map([...world.indeterminate, [keyId(op.who, op.key), op.index]]) };
}

function stepReplay(world: World, op: CreateOp, record: KeyRecord, raced: boolean): Step {
  const outcome = op.outcome;
  const recorded = record.result;
  const conversation =
    recorded === undefined ? undefined : world.conversations.get(conversationKey(recorded.conversationId));
  const suspectOf = (requirement: RequirementId, why: Words) => ({
    op: op.index,
    message: op.message,
    requirement,
    why,
  });
  // A replay must change nothing; should a listing show it did, this is why.
  const suspectedIn = outcome.type === "ok" ? outcome.value.conversationId : op.conversationId;
  const suspected = (w: World) =>
    (recorded?.conversationId ?? suspectedIn) === null
      ? w
      : withSuspect(
          w,
          recorded?.conversationId ?? suspectedIn ?? "",
          raced
            ? suspectOf("IDEM-5", words`#${op.index} raced #${record.op} with the same key and payload`)
            : suspectOf(idempotencyRequirement(op, "consumed"), words`#${op.index} replayed the key of #${record.op}`),
        );

  if (outcome.type === "ok") {
    if (recorded === undefined) return { worlds: [suspected(adoptResult(world, op, record, outcome.value))] };
    if (!sameResult(outcome.value, recorded)) {
      const requirement = raced ? "IDEM-5" : idempotencyRequirement(op, "answer");
      const what = raced
        ? words`#${op.index} and #${record.op} ran at once with the same key and payload, and both ran`
        : words`#${op.index} replayed the key of #${record.op}`;
      const [answered, earlier] = describeApart(outcome.value, recorded);
      return {
        violation: violation(
          requirement,
          words`${what}: it answered ${answered}`,
          [record.op, op.index],
          words`the earlier result: ${earlier}`,
        ),
      };
    }
    return { worlds: [suspected(world)] };
  }
  if (outcome.type === "refused") {
    // A first request of unknown outcome whose exchange a later listing showed had ended: its key is in use no more.
    const listed =
      recorded === undefined && !raced && outcome.status === 409 ? listedSince(world, op, record) : undefined;
    if (listed !== undefined) {
      return {
        violation: violation(
          idempotencyRequirement(op, "answer"),
          words`#${op.index} sent the key of #${record.op} again, whose exchange #${listed} had listed (stored, so no longer running), and was answered 409`,
          [record.op, listed, op.index],
          words`the result of #${record.op}, which took effect`,
        ),
      };
    }
    // A loser of a race may be told the key is in use; after a delete the key may be gone with its conversation.
    if (raced || recorded === undefined || conversation === undefined || conversation.deletedBy !== undefined)
      return { worlds: [world] };
    // The same payload written otherwise (key order, whitespace) taken for another one.
    const rewritten =
      op.raw !== undefined &&
      record.raw !== undefined &&
      op.raw !== record.raw &&
      (outcome.status === 409 || outcome.status === 422);
    // A body the spec allows, accepted once, refused for what it is: its optional fields were judged, not its key.
    const invalidated =
      !rewritten && op.optionalFields === true && VALIDATION_STATUSES.has(outcome.status) && outcome.status !== 409;
    return {
      violation: violation(
        rewritten ? "IDEM-8" : invalidated ? "RESP-6" : idempotencyRequirement(op, "answer"),
        words`#${op.index} replayed the key of #${record.op} (same payload, after it had finished) and was answered ${outcome.status}`,
        [record.op, op.index],
        words`the earlier result: ${describeResult(recorded)}`,
      ),
    };
  }
  if (raced && outcome.status !== undefined && outcome.status >= 500) {
    return {
      worlds: [suspected(world)],
      warnings: [
        violation(
          "IDEM-9",
          words`#${op.index} lost a same-key race with #${record.op} and was answered ${outcome.status}`,
          [record.op, op.index],
          words`409, or the result of #${record.op}`,
        ),
      ],
    };
  }
  return { worlds: [suspected(world)] };
}

/** The listing (#n) that showed the record's exchange, in this world where it took effect, if one did after it. */
function listedSince(world: World, op: CreateOp, record: KeyRecord): number | undefined {
  const conversation =
    op.conversationId === null ? undefined : world.conversations.get(conversationKey(op.conversationId));
  if (conversation === undefined || !conversation.exchanges.some((e) => e.op === record.op)) return undefined;
  const seen = conversation.updatedAt?.op;
  return seen !== undefined &&
    seen > record.op &&
    conversation.updatedAt !== undefined &&
    conversation.updatedAt.exchanges >= conversation.exchanges.findIndex((e) => e.op === record.op) + 1
    ? seen
    : undefined;
}

/** The key's first request had an unknown outcome and took effect: its replay tells what it was. */
function adoptResult(world: World, op: CreateOp, record: KeyRecord, result: CreateResult): World {
  let next = withKey(world, keyId(op.who, op.key ?? "", record.endpoint), { ...record, result });
  const shared = keyId(op.who, op.key ?? "");
  if (next.keys.get(shared)?.op === record.op) next = withKey(next, shared, { ...record, result });
  if (!next.conversations.has(conversationKey(result.conversationId))) {
    next = withConversation(next, {
      id: result.conversationId,
      owner: op.who,
      // The first request's outcome was unknown: that is why its replay tells what it was.
      exchanges: [
        {
          op: record.op,
          message: op.message,
          endpoint: record.endpoint,
          at: record.at,
          end: record.end,
          unfinished: true,
        },
      ],
      deletedBy: undefined,
      suspects: [],
      updatedAt: undefined,
    });
  }
  return next;
}

function stepConflict(world: World, op: CreateOp, record: KeyRecord): Step {
  const outcome = op.outcome;
  // A body of a shape the service may refuse can be refused before its key is looked at.
  if (outcome.type === "refused" && (outcome.status === 409 || op.openShape !== undefined)) return { worlds: [world] };
  if (outcome.type === "unknown") {
    const id = record.result?.conversationId ?? op.conversationId;
    const w =
      id === null || id === undefined
        ? world
        : withSuspect(world, id, {
            op: op.index,
            message: op.message,
            requirement: idempotencyRequirement(op, "conflict"),
            why: words`#${op.index} reused the key of #${record.op} with another payload`,
          });
    return { worlds: [w] };
  }
  const answered =
    outcome.type === "ok" ? `served it (${describeResult(outcome.value)})` : `answered ${outcome.status}`;
  // Refused for what the body is (a validation status) when it carries fields the spec allows: RESP-6 explains it first.
  const invalidated =
    outcome.type === "refused" && op.optionalFields === true && VALIDATION_STATUSES.has(outcome.status);
  return {
    violation: violation(
      invalidated ? "RESP-6" : idempotencyRequirement(op, "conflict"),
      words`#${op.index} reused the key of #${record.op} with another payload and the service ${answered}`,
      [record.op, op.index],
      words`409, and nothing stored: the key is bound to the payload of #${record.op}`,
    ),
  };
}

function newConversation(op: CreateOp, id: string): ConversationState {
  return {
    id,
    owner: op.who,
    exchanges: [{ op: op.index, message: op.message, endpoint: op.endpoint, at: op.start, end: op.end }],
    deletedBy: undefined,
    suspects: [],
    updatedAt: undefined,
  };
}

function recordKey(world: World, op: CreateOp, result: CreateResult | undefined): World {
  const record = keyRecordOf(op, result);
  return record === undefined ? world : withRecordedKey(world, record);
}

const keyRecordOf = (op: CreateOp, result: CreateResult | undefined): KeyRecord | undefined =>
  op.key === null
    ? undefined
    : {
        op: op.index,
        who: op.who,
        key: op.key,
        endpoint: op.endpoint,
        payload: op.payload,
        raw: op.raw,
        result,
        at: op.start,
        end: op.end,
      };

/**
 * A "not now" answer to a fresh key: 429 always; 409 or 423 (Locked) when something ran at the
 * same time (the conversation busy with another exchange), or when requests outside this history may have.
 */
function notNow(world: World, op: CreateOp, status: number, context: StepContext): boolean {
  // A key whose first request's outcome is unknown may be held by it still, or bound to its payload since.
  const indeterminate = op.key !== null && world.indeterminate.has(keyId(op.who, op.key));
  if (status === 409 || status === 423) return op.exclusive !== true || context.overlapping.size > 0 || indeterminate;
  return isBusy(status);
}

/**
 * Whether a service may refuse a fresh create, new or continuing, without breaking the spec: not
 * now (notNow), a body of a shape the spec leaves open (heldToShape holds the service to it), or a
 * key of a form it leaves open (refusedForItsKey).
 */
const mayRefuse = (world: World, op: CreateOp, status: number, context: StepContext) =>
  notNow(world, op, status, context) || op.openShape !== undefined || refusedForItsKey(op, context);

function stepNewConversation(world: World, op: CreateOp, context: StepContext): Step {
  const outcome = op.outcome;
  if (outcome.type === "ok") {
    const id = outcome.value.conversationId;
    if (world.conversations.has(conversationKey(id))) {
      return {
        violation: violation(
          "RESP-3",
          words`#${op.index} started a conversation without conversation_id and was answered ${id}, a conversation that already existed`,
          [op.index],
          words`a new conversation id, not ${id}`,
        ),
      };
    }
    return { worlds: [recordKey(withConversation(world, newConversation(op, id)), op, outcome.value)] };
  }
  if (outcome.type === "refused") {
    if (mayRefuse(world, op, outcome.status, context)) return { worlds: [world] };
    const requirement =
      op.optionalFields === true && outcome.status !== 409 ? "RESP-6" : op.endpoint === "stream" ? "SSE-1" : "RESP-1";
    return {
      violation: violation(
        requirement,
        words`#${op.index} started a conversation with a valid body and was refused with ${outcome.status}`,
        [op.index],
        words`2xx, and a new conversation`,
      ),
    };
  }
  // It may have started a conversation whose id the model never learns; a replay of its key may tell.
  return { worlds: [notTakenEffect(world, op), recordKey(world, op, undefined)] };
}

function stepContinuation(world: World, op: CreateOp, context: StepContext): Step {
  const outcome = op.outcome;
  const id = op.conversationId ?? "";
  const conversation = world.conversations.get(conversationKey(id));
  if (conversation === undefined) {
    // Not a conversation this history made: nothing to hold it to; refused, its key stays free.
    return {
      worlds: [
        outcome.type === "refused" ? world : recordKey(world, op, outcome.type === "ok" ? outcome.value : undefined),
      ],
    };
  }
  const appended = (w: World): World => {
    const current = w.conversations.get(conversationKey(id)) ?? conversation;
    return withConversation(w, {
      ...current,
      exchanges: [
        ...current.exchanges,
        {
          op: op.index,
          message: op.message,
          endpoint: op.endpoint,
          at: op.start,
          end: op.end,
          ...(outcome.type === "unknown" ? { unfinished: true as const } : {}),
        },
      ],
    });
  };

  if (conversation.owner !== op.who) return stepForeignContinuation(world, op, conversation);
  if (conversation.deletedBy !== undefined) {
    if (outcome.type === "ok" && sameConversation(outcome.value.conversationId, id)) {
      const found = violation(
        "DEL-3",
        words`#${op.index} continued conversation ${id}, deleted by #${conversation.deletedBy}, and was answered 2xx with its id`,
        [conversation.deletedBy, op.index],
        words`404 conversation_not_found`,
      );
      // One that overlapped its delete may have come first.
      return { violation: afterOverlapping(found, conversation.deletedBy, context) };
    }
    if (outcome.type === "ok")
      return {
        worlds: [
          recordKey(withConversation(world, newConversation(op, outcome.value.conversationId)), op, outcome.value),
        ],
      };
    return { worlds: [world] };
  }
  if (outcome.type === "ok") {
    if (!sameConversation(outcome.value.conversationId, id)) {
      return {
        violation: violation(
          exchangeRequirement(op.endpoint),
          words`#${op.index} continued conversation ${id} and was answered conversation ${outcome.value.conversationId}`,
          [op.index],
          words`conversation ${id}`,
        ),
      };
    }
    return { worlds: [recordKey(appended(world), op, outcome.value)] };
  }
  if (outcome.type === "refused") {
    if (mayRefuse(world, op, outcome.status, context)) return { worlds: [world] };
    return {
      violation: violation(
        op.optionalFields === true && outcome.status !== 409 ? "RESP-6" : exchangeRequirement(op.endpoint),
        words`#${op.index} continued conversation ${id}, which exists in its scope, and was refused with ${outcome.status}${outcome.code === undefined ? "" : ` ${outcome.code}`}`,
        [conversation.exchanges[0]?.op ?? op.index, op.index],
        words`2xx, the same conversation`,
      ),
    };
  }
  // Where it had not taken effect, the service may still store it: a later listing that shows it takes it in, with its key.
  const exchange = {
    op: op.index,
    message: op.message,
    endpoint: op.endpoint,
    at: op.start,
    end: op.end,
    unfinished: true as const,
    record: keyRecordOf(op, undefined),
    answered: (outcome.status ?? 0) >= 500,
  };
  const late = new Map(world.late);
  late.set(conversationKey(id), [...(world.late.get(conversationKey(id)) ?? []), exchange]);
  return { worlds: [{ ...notTakenEffect(world, op), late }, recordKey(appended(world), op, undefined)] };
}

/** Another agent's or another key's create naming this conversation: it must never reach it. */
function stepForeignContinuation(world: World, op: CreateOp, conversation: ConversationState): Step {
  const outcome = op.outcome;
  if (outcome.type === "ok" && sameConversation(outcome.value.conversationId, conversation.id)) {
    return {
      violation: violation(
        "SCOPE-4",
        words`#${op.index} (${op.who}) continued conversation ${conversation.id} of ${conversation.owner} and was answered 2xx with its id`,
        [conversation.exchanges[0]?.op ?? op.index, op.index],
        words`a refusal (404), or a new conversation of its own`,
      ),
    };
  }
  if (outcome.type === "ok")
    return {
      worlds: [
        recordKey(withConversation(world, newConversation(op, outcome.value.conversationId)), op, outcome.value),
      ],
    };
  if (outcome.type === "unknown") {
    return {
      worlds: [
        withSuspect(world, conversation.id, {
          op: op.index,
          message: op.message,
          requirement: "SCOPE-4",
          why: words`#${op.index} (${op.who}) tried to continue it`,
        }),
      ],
    };
  }
  // Refused: what it should be; a foreign attempt leaves a suspect should the conversation grow anyway.
  return {
    worlds: [
      withSuspect(world, conversation.id, {
        op: op.index,
        message: op.message,
        requirement: "SCOPE-4",
        why: words`#${op.index} (${op.who}) tried to continue it and was refused`,
      }),
    ],
  };
}
