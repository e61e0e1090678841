/**
 * Runs the walk's commands against the target and records each request as an operation of the
 * history. A race holds its first request open (a stream, read up to the chosen point: its
 * `response.created`, its first delta or its `response.completed`) and sends the others then, each
 * on its own connection, so overlaps happen even against a fast target. A dropped stream is
 * aborted by the client at its point; its outcome stays unknown until the conversation is quiet.
 * Before a race, each conversation it touches is read settled; after any command that wrote, the
 * conversations it touched are read back, settled, on another connection, so an effect is
 * attributed to the operation that caused it.
 */
import { EVENT } from "../../schemas/index.ts";
import { sleep } from "../http/retry.ts";
import type { HttpResult, StreamResult, Transcript } from "../http/types.ts";
import { canonicalJson, type CreateOp, type DeleteOp, type ListOp, type Op } from "../model/operation.ts";
import { describeQuery } from "../model/page.ts";
import { LANES, type Command, type CreateRequest, type Request, type Timing } from "./commands.ts";
import {
  judgeDeletion,
  judgeListing,
  judgePlainCreate,
  judgeStreamCreate,
  type Answer,
  type Judged,
} from "./observed.ts";
import { recordAnswer } from "./record.ts";
import { arrangementOf } from "./space.ts";
import type { Entry, Session } from "./session.ts";

const now = () => performance.now();

/** After a dropped stream, how long the conversation's total stays still before it is read back. */
const QUIET_MS = 100;

export async function runCommand(session: Session, command: Command): Promise<void> {
  if (session.failure !== undefined) return;
  const entries = command.kind === "one" ? await runOne(session, command) : await runRace(session, command);
  if (entries.length === 0) return;
  session.judge(entries);
  await readBack(session, entries, command.kind === "one" ? (command.lane + 1) % LANES : 0);
  if (command.kind === "race" && command.ordering !== undefined) {
    // The race ran (a tally the walk reads, not a reported cell), whichever order it showed; and
    // whether the other request was answered before the held one ended: what a write during
    // generation needs, which a slow hop or a loaded machine can take away from any arrangement.
    session.cover([
      `race:${command.ordering}`,
      ...(answeredWhileHeld(entries) ? [`race:${command.ordering}:answered-while-held`] : []),
    ]);
    const arrangement =
      command.held.kind === "create"
        ? arrangementOf(command.ordering, command.held.endpoint, command.timing)
        : undefined;
    if (arrangement !== undefined) session.cover([`orderings:${arrangement}`]);
    coverOrdering(session, command.ordering, entries);
  }
}

async function runOne(session: Session, command: Extract<Command, { kind: "one" }>): Promise<Entry[]> {
  if (!reserve(session, command.request)) return [];
  const first = await send(session, command.request, command.lane, {});
  const entries = [first];
  if (first.sent?.dropped === undefined) {
    for (const lane of command.alsoOn ?? []) {
      if (session.failure !== undefined) break;
      entries.push(await send(session, command.request, lane, {}));
    }
    return entries;
  }
  const otherLane = (command.lane + 1) % LANES;
  // Sent again under the same key at once: the first may still be running (client rule 1).
  const soon =
    command.retrySoon !== undefined && reserve(session, command.retrySoon)
      ? await send(session, command.retrySoon, otherLane, { inGroup: true })
      : undefined;
  if (soon !== undefined) entries.push(soon);
  // The dropped stream may still take effect (the model takes it in whenever a listing shows it): the read-back waits for a quiet moment first.
  await quiet(session, command.request, command.lane);
  // Late: the client's only retry, or its next one after the first was refused while the stream ran.
  const late = soon === undefined || soon.op.outcome.type === "refused" ? command.retryLate : undefined;
  if (late === undefined || session.failure !== undefined) return entries;
  // What the service did for the stream is read back before the late retry, so that the retry is
  // judged against it: a key still refused as in use once its exchange is over is a lock kept.
  session.judge(entries);
  await readBack(session, entries, otherLane);
  if (session.failure !== undefined) return [];
  // Sent again as the key's own retry: judged, not waited out on 409 (the model knows what may still run).
  const again = session.keyUse(late.key, late.who);
  const retry: CreateRequest = again === undefined ? late : { ...late, again };
  return reserve(session, retry) ? [await send(session, retry, otherLane, {})] : [];
}

/**
 * Takes a create from the sequence for any create that is not a replay of a finished key, as the
 * run's budget holds one for it while it runs (a refusal gives it back); false when none is left.
 */
function reserve(session: Session, request: Request): boolean {
  return request.kind !== "create" || request.replay || session.takeCreate();
}

async function runRace(session: Session, command: Extract<Command, { kind: "race" }>): Promise<Entry[]> {
  await settleConversations(session, [command.held, ...command.others]);
  if (session.failure !== undefined || !reserve(session, command.held)) return [];
  const others = command.others.filter((r) => reserve(session, r));
  if (others.length === 0) {
    if (command.held.kind === "create" && !command.held.replay) session.returnCreate();
    return [];
  }
  const sharesKey =
    command.held.kind === "create" &&
    others.some((o) => o.kind === "create" && o.key === (command.held as CreateRequest).key);
  if (sharesKey) session.races++;
  return sendAtPoint(session, command.held, others, command.timing);
}

/** Sends the held request, then the others once it reached `timing` (or ended), each on its own lane. */
async function sendAtPoint(
  session: Session,
  held: Request,
  others: readonly Request[],
  timing: Timing,
): Promise<Entry[]> {
  let release: () => void = () => {};
  const reached = new Promise<void>((resolve) => (release = resolve));
  const point =
    timing === "after-created"
      ? EVENT.created
      : timing === "after-delta"
        ? EVENT.delta
        : timing === "after-completed"
          ? EVENT.completed
          : undefined;
  const first = send(session, held, 0, { inGroup: true, onEvent: (name) => (name === point ? release() : undefined) });
  if (point === undefined) release();
  // A stream that never reaches the point (refused, broken, no delta) releases the others when it ends.
  await Promise.race([reached, first.then(() => undefined)]);
  const rest = others.map((request, i) => send(session, request, (i + 1) % LANES, { inGroup: true }));
  return Promise.all([first, ...rest]);
}

/** Reads every live conversation a race touches until the model accepts it, so the race meets no lag from earlier writes. */
async function settleConversations(session: Session, requests: readonly Request[]): Promise<void> {
  const ids = new Set(
    requests.map((r) =>
      r.kind === "create"
        ? typeof r.body.conversation_id === "string"
          ? r.body.conversation_id
          : undefined
        : r.conversationId,
    ),
  );
  for (const id of ids) {
    const conversation = session.conversation(id);
    if (conversation === undefined || conversation.deleted) continue;
    const entry = await send(
      session,
      { kind: "list", who: conversation.owner, conversationId: conversation.id, query: {}, cells: [] },
      0,
      { settle: true },
    );
    session.judge([entry]);
    if (session.failure !== undefined) return;
  }
}

/**
 * After a command that wrote, each conversation it touched is read (settled) by its owner, on
 * another connection than the write: a lost, doubled or resurrected exchange shows at once.
 */
async function readBack(session: Session, entries: readonly Entry[], lane: number): Promise<void> {
  const touched = new Set<string>();
  for (const { op } of entries) {
    if (op.kind === "list") continue;
    const id =
      op.kind === "delete"
        ? op.conversationId
        : op.outcome.type === "ok"
          ? op.outcome.value.conversationId
          : op.conversationId;
    if (id !== null) touched.add(id.toLowerCase());
  }
  for (const id of touched) {
    if (session.failure !== undefined) return;
    const conversation = session.conversation(id);
    if (conversation === undefined) continue;
    const entry = await send(
      session,
      { kind: "list", who: conversation.owner, conversationId: conversation.id, query: {}, cells: [] },
      lane,
      { settle: true },
    );
    session.judge([entry]);
  }
}

/**
 * Waits until the conversation a dropped stream continued has changed from what it held before
 * (the total of its latest read-back, which no create of this command changes) and then shows the
 * same total twice in a row, QUIET_MS apart (at most --settle-ms): a service that stores an
 * exchange when it completes shows nothing until then, so a total that has not moved yet is no
 * sign that the stream is over. The read-back and a late retry then meet what the service did for
 * the stream. A new conversation's id was never learned; it waits QUIET_MS.
 */
async function quiet(session: Session, request: Request, lane: number): Promise<number> {
  const conversation =
    request.kind === "create" && typeof request.body.conversation_id === "string"
      ? session.conversation(request.body.conversation_id)
      : undefined;
  const totalBefore = conversation?.total;
  const identity = conversation === undefined ? undefined : session.identity(conversation.owner);
  const client = session.target.lanes[(lane + 1) % session.target.lanes.length];
  if (conversation === undefined || identity === undefined || client === undefined) {
    await sleep(QUIET_MS);
    return now();
  }
  const deadline = now() + Math.max(session.target.settleMs, QUIET_MS);
  let last: unknown;
  for (;;) {
    const answer = await answerOf(() => client.list(conversation.id, { as: identity, retryInUse: true }));
    const total = "result" in answer ? (answer.result.json as { total?: unknown } | undefined)?.total : undefined;
    const moved = totalBefore === undefined || total !== totalBefore;
    if (total !== undefined && total === last && moved) return now();
    last = total;
    if (now() + QUIET_MS > deadline) return now();
    await sleep(QUIET_MS);
  }
}

/** Whether a race's other request was answered while its held request still ran. */
function answeredWhileHeld(entries: readonly Entry[]): boolean {
  const [held, other] = entries.map((e) => e.op);
  return held !== undefined && other !== undefined && other.end < held.end;
}

/** Covers the ordering cell of a race once the model (or the answers) tell which of its first two requests took effect first. */
function coverOrdering(session: Session, cls: string, entries: readonly Entry[]): void {
  const [held, other] = entries.map((e) => e.op);
  if (held === undefined || other === undefined) return;
  const heldFirst = session.tookEffectFirst(held.index, other.index) ?? loserFirst(held, other);
  if (heldFirst === undefined) return;
  const [sentFirst] = [held, other].sort((a, b) => a.start - b.start);
  const firstInEffect = heldFirst ? held : other;
  const label = orderingLabel(cls, firstInEffect, sentFirst);
  if (label !== undefined) session.cover([`orderings:${cls}/${label}`]);
}

/** Of two requests under one key, the one refused (409, in use) did not take effect first; undefined when both or neither were. */
function loserFirst(held: Op, other: Op): boolean | undefined {
  const refused = (op: Op) => op.outcome.type === "refused";
  if (refused(held) === refused(other)) return undefined;
  return refused(other);
}

function orderingLabel(cls: string, firstInEffect: Op, sentFirst: Op | undefined): string | undefined {
  switch (cls) {
    case "two-exchanges":
      return firstInEffect === sentFirst ? "sent-first-first" : "sent-second-first";
    case "one-key-both-endpoints":
      return firstInEffect.kind === "create" ? `${firstInEffect.endpoint}-first` : undefined;
    case "replay-in-flight-original":
      return firstInEffect === sentFirst ? "original-first" : "replay-first";
    default:
      return firstInEffect.kind === "delete" ? "delete-first" : "exchange-first";
  }
}

async function answerOf<R>(run: () => Promise<R>): Promise<Answer<R>> {
  try {
    return { result: await run() };
  } catch (error) {
    return { error };
  }
}

function transcriptOf(answer: Answer<HttpResult | StreamResult>): Transcript | undefined {
  if ("result" in answer) return answer.result.transcript;
  const error = answer.error as { transcript?: Transcript } | undefined;
  return error?.transcript;
}

function describeOutcome(judged: Judged<unknown>, extra: string): string {
  const o = judged.outcome;
  if (o.type === "ok") return `${o.status}${extra}`;
  if (o.type === "refused") return `${o.status}${o.code === undefined ? "" : ` ${o.code}`}`;
  return `unknown outcome (${o.reason})`;
}

interface SendOptions {
  /** Sent at once with others: every answer is a verdict, a 409 "in use" included. */
  readonly inGroup?: boolean;
  /** A listing read again until the model's verdict on it settles (Session.settles) or --settle-ms passed. */
  readonly settle?: boolean;
  readonly onEvent?: (name: string | undefined) => void;
}

/** The events a dropped stream is cut after: its point, counted in events of that name. */
const DROP_AFTER = {
  "after-created": [EVENT.created, 1],
  "after-delta": [EVENT.delta, 1],
  "before-completion": [EVENT.delta, 3],
} as const;

/** Sends one request on one lane, records it and what it changed in the session. */
export async function send(session: Session, request: Request, lane: number, options: SendOptions): Promise<Entry> {
  const client = session.target.lanes[lane % session.target.lanes.length];
  const identity = session.identity(request.who);
  if (client === undefined || identity === undefined)
    throw new Error("the property needs a lane and the identity it chose");
  const index = session.nextIndex();
  const agent = identity.agentId;

  if (request.kind === "list") {
    const described = describeQuery(request.query);
    const path = `/v1/agents/${agent}/conversations/${request.conversationId}/messages${described === "no parameters" ? "" : `?${described}`}`;
    const query = {
      ...(request.query.page === undefined ? {} : { page: request.query.page }),
      ...(request.query.pageSize === undefined ? {} : { page_size: request.query.pageSize }),
    };
    const deadline = now() + session.target.settleMs;
    for (let wait = 50; ; wait = Math.min(wait * 2, 500)) {
      const start = now();
      const answer = await answerOf(() =>
        client.list(request.conversationId, { as: identity, query, retryInUse: true }),
      );
      const end = now();
      const judged = judgeListing(answer, index);
      const op: ListOp = {
        kind: "list",
        index,
        start,
        end,
        who: request.who,
        conversationId: request.conversationId,
        query: request.query,
        outcome: judged.outcome,
        settledBefore: start - session.target.settleMs,
      };
      const total =
        judged.outcome.type === "ok"
          ? ` total ${judged.outcome.value.total}, ${judged.outcome.value.items.length} item(s)`
          : "";
      const entry: Entry = {
        op,
        lane,
        method: "GET",
        path,
        answer: describeOutcome(judged, total),
        transcript: transcriptOf(answer),
      };
      session.fail(judged.problem);
      if (
        options.settle !== true ||
        judged.problem !== undefined ||
        session.settles(entry) ||
        now() + wait > deadline
      ) {
        recordAnswer(session, request, judged.outcome, lane);
        return entry;
      }
      await sleep(wait);
    }
  }

  if (request.kind === "delete") {
    const path = `/v1/agents/${agent}/conversations/${request.conversationId}`;
    const start = now();
    const answer = await answerOf(() => client.delete(request.conversationId, { as: identity }));
    const end = now();
    const judged = judgeDeletion(answer);
    const op: DeleteOp = {
      kind: "delete",
      index,
      start,
      end,
      who: request.who,
      conversationId: request.conversationId,
      outcome: judged.outcome,
    };
    recordAnswer(session, request, judged.outcome, lane);
    return { op, lane, method: "DELETE", path, answer: describeOutcome(judged, ""), transcript: transcriptOf(answer) };
  }

  const path = `/v1/agents/${agent}/responses${request.endpoint === "stream" ? "/stream" : ""}`;
  const dropping = request.drop === undefined || request.endpoint !== "stream" ? undefined : new AbortController();
  const [dropAt, dropCount] = request.drop === undefined ? [undefined, 0] : DROP_AFTER[request.drop];
  let seen = 0;
  const onEvent = (e: { event: string | undefined }) => {
    options.onEvent?.(e.event);
    if (dropping !== undefined && e.event === dropAt && ++seen === dropCount)
      dropping.abort(`the client dropped the stream ${request.drop}`);
  };
  const raw = JSON.stringify(request.body);
  const sending = {
    as: identity,
    rawBody: raw,
    idempotencyKey: request.key,
    replay: request.replay,
    // A key sent again is judged, not waited out: the model knows whether its first request may still run.
    retryInUse: options.inGroup !== true && request.again === undefined,
    onEvent,
    ...(dropping === undefined ? {} : { drop: dropping.signal }),
  };
  const start = now();
  const answer =
    request.endpoint === "stream"
      ? await answerOf(() => client.stream(sending))
      : await answerOf(() => client.create(sending));
  const end = now();
  const judged =
    request.endpoint === "stream"
      ? judgeStreamCreate(answer as Answer<StreamResult>, index)
      : judgePlainCreate(answer as Answer<HttpResult>, index);
  const conversationId = typeof request.body.conversation_id === "string" ? request.body.conversation_id : null;
  const op: CreateOp = {
    kind: "create",
    index,
    start,
    end,
    who: request.who,
    endpoint: request.endpoint,
    key: request.key,
    message: request.message,
    conversationId,
    payload: canonicalJson(request.body),
    raw,
    outcome: judged.outcome,
    exclusive: true,
    ...(request.openShape === undefined ? {} : { openShape: request.openShape }),
    optionalFields: request.optionalFields,
  };
  const cut = dropping?.signal.aborted === true;
  const dropped = cut && judged.outcome.type === "unknown" ? request.drop : undefined;
  // A stream the client cut on purpose is no verdict on how the stream ends.
  if (!cut) session.fail(judged.problem);
  if (!request.replay && judged.outcome.type === "refused") session.returnCreate();
  recordAnswer(session, request, judged.outcome, lane, dropped !== undefined);
  const conversation = judged.outcome.type === "ok" ? ` conversation ${judged.outcome.value.conversationId}` : "";
  const shown = dropped !== undefined ? ` (dropped by the client ${dropped})` : "";
  return {
    op,
    lane,
    method: "POST",
    path,
    answer: `${describeOutcome(judged, request.endpoint === "stream" ? ` completed${conversation}` : conversation)}${shown}`,
    transcript: transcriptOf(answer),
    sent: { body: request.body, tag: request.tag, ...(dropped === undefined ? {} : { dropped }) },
  };
}
