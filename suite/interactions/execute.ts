/**
 * Runs the property's commands against the target and records each request as an operation
 * of the history. A parallel group sends its requests at once, each on its own connection;
 * when it holds a stream, the stream goes first and the others are sent once it has said
 * `response.created`, so they overlap its generation even on a fast target. Before a group,
 * each conversation it touches is read settled, so a listing inside the group meets no lag
 * from earlier writes; listings outside groups are read until the model accepts them or
 * --settle-ms has passed (a write-behind service is not failed for its lag).
 */
import { EVENT } from "../../schemas/index.ts";
import { sleep } from "../http/retry.ts";
import type { HttpResult, Identity, StreamResult, Transcript } from "../http/types.ts";
import { canonicalJson, type CreateOp, type DeleteOp, type Endpoint, type ListOp, type Who } from "../model/operation.ts";
import { describeQuery } from "../model/page.ts";
import type { Violation } from "../model/violation.ts";
import { LANES, type Command, type KeyPick, type Request, type Slot } from "./commands.ts";
import { judgeDeletion, judgeListing, judgePlainCreate, judgeStreamCreate, type Answer, type Judged } from "./observed.ts";
import type { Entry, KeyUse, Session, SlotState } from "./session.ts";

/** A request resolved against the session's state when it is sent. */
export type Call =
  | {
      readonly kind: "create"; readonly endpoint: Endpoint; readonly who: Who; readonly identity: Identity;
      readonly key: string; readonly message: string; readonly body: Record<string, unknown>;
      readonly conversationId: string | null; readonly replay: boolean;
      /** The slot it starts or continues, when it is the slot owner's exchange. */
      readonly slot: Slot | undefined;
      /** It continues a conversation already deleted when it was sent. */
      readonly afterDelete?: boolean;
    }
  | { readonly kind: "list"; readonly who: Who; readonly identity: Identity; readonly conversationId: string; readonly query: ListOp["query"]; readonly settle: boolean }
  | { readonly kind: "delete"; readonly who: Who; readonly identity: Identity; readonly conversationId: string; readonly slot: Slot | undefined };

const now = () => performance.now();

export async function runCommand(session: Session, command: Command): Promise<void> {
  if (session.failure !== undefined) return;
  let entries: Entry[];
  if (command.kind === "one") {
    const call = plan(session, command.request, undefined, true);
    if (call === undefined) return;
    entries = [await send(session, call, command.lane % LANES, { inGroup: false })];
  } else {
    await settleSlots(session, command.requests);
    if (session.failure !== undefined) return;
    const shared = command.sameKey ? { key: session.target.idempotencyKey("race"), message: session.target.message("race") } : undefined;
    const calls = command.requests.map((r) => plan(session, r, shared, false)).filter((c): c is Call => c !== undefined);
    if (calls.length === 0) return;
    if (shared !== undefined && calls.filter((c) => c.kind === "create").length > 1) session.races++;
    entries = await sendAtOnce(session, calls);
  }
  session.judge(entries);
  await readBack(session, entries, command.kind === "one" ? (command.lane + 1) % LANES : 0);
}

/**
 * After a command that wrote, each conversation it touched is read (settled) by its owner, on
 * another connection than the write: a lost, doubled or resurrected exchange shows at once.
 */
async function readBack(session: Session, entries: readonly Entry[], lane: number): Promise<void> {
  const touched = new Set<string>();
  for (const { op } of entries) {
    if (op.kind === "list") continue;
    const id = op.kind === "delete" ? op.conversationId : op.outcome.type === "ok" ? op.outcome.value.conversationId : op.conversationId;
    if (id !== null) touched.add(id.toLowerCase());
  }
  for (const id of touched) {
    if (session.failure !== undefined) return;
    const owner = session.owners.get(id);
    const identity = owner === undefined ? undefined : session.identity(owner.who);
    if (owner === undefined || identity === undefined) continue;
    const entry = await send(session, { kind: "list", who: owner.who, identity, conversationId: owner.id, query: {}, settle: true }, lane, { inGroup: false });
    session.judge([entry]);
  }
}

/** Reads every live conversation a group touches until the model accepts it, on a lane of its own. */
async function settleSlots(session: Session, requests: readonly Request[]): Promise<void> {
  const slots = new Set(requests.filter((r) => "slot" in r).map((r) => (r as { slot: Slot }).slot));
  for (const slot of slots) {
    const state = session.slot(slot);
    if (state === undefined || state.deleted) continue;
    const identity = session.identity(state.owner);
    if (identity === undefined) continue;
    const entry = await send(session, { kind: "list", who: state.owner, identity, conversationId: state.id, query: {}, settle: true }, 0, { inGroup: false });
    session.judge([entry]);
    if (session.failure !== undefined) return;
  }
}

/** Sends calls one after the other, or at once; records and judges them. */
export async function sendCalls(session: Session, calls: readonly Call[], atOnce: boolean): Promise<Entry[]> {
  const entries: Entry[] = [];
  if (atOnce) entries.push(...(await sendAtOnce(session, calls)));
  else for (const call of calls) entries.push(await send(session, call, 0, { inGroup: false }));
  session.judge(entries);
  return entries;
}

/** Sends the calls at once, each on its own lane; a stream among them is opened first and held open. */
async function sendAtOnce(session: Session, calls: readonly Call[]): Promise<Entry[]> {
  const holder = calls.findIndex((c) => c.kind === "create" && c.endpoint === "stream");
  if (holder === -1) return Promise.all(calls.map((call, lane) => send(session, call, lane % LANES, { inGroup: true })));
  let opened: () => void = () => {};
  const created = new Promise<void>((resolve) => (opened = resolve));
  const held = send(session, calls[holder] as Call, holder % LANES, {
    inGroup: true,
    onEvent: (name) => {
      if (name === EVENT.created) opened();
    },
  });
  // A stream that never says response.created (refused, broken) releases the others when it ends.
  await Promise.race([created, held.then(() => undefined)]);
  const others = calls.map((call, lane) => (lane === holder ? held : send(session, call, lane % LANES, { inGroup: true })));
  return Promise.all(others);
}

/** Resolves a request against the session; undefined when it cannot run (no conversation, no identity, no budget). */
function plan(session: Session, request: Request, shared: { key: string; message: string } | undefined, settle: boolean): Call | undefined {
  const primary = session.target.identities.primary;
  switch (request.kind) {
    case "exchange": {
      const own = session.slot(request.slot);
      const other = session.slot(request.slot === 0 ? 1 : 0);
      const state = own === undefined && request.continuing === true && other !== undefined && !other.deleted ? other : own;
      const slotUsed = state === other && own === undefined && other !== undefined ? (request.slot === 0 ? 1 : 0) : request.slot;
      const message = shared?.message ?? session.target.message(`i${request.slot + 1}`);
      const key = shared?.key ?? session.target.idempotencyKey("i");
      const conversationId = state === undefined ? null : state.id;
      const body = conversationId === null ? { message } : { message, conversation_id: conversationId };
      // In a one-key group only the first request may take effect; the others are replays or 409s.
      const sibling = shared !== undefined && session.keys.some((k) => k.key === key);
      if (!sibling && !session.takeCreate()) return undefined;
      if (shared !== undefined && !sibling) session.keys.push({ key, message, body, who: "primary", endpoint: request.endpoint, lane: 0, ok: false });
      return { kind: "create", endpoint: request.endpoint, who: "primary", identity: primary, key, message, body, conversationId, replay: sibling, slot: slotUsed, afterDelete: state?.deleted === true };
    }
    case "replay":
    case "conflict": {
      const use = pickKey(session, request.kind === "replay" ? request.pick : request.pick);
      if (use === undefined) return undefined;
      const identity = session.identity(use.who);
      if (identity === undefined) return undefined;
      const free = request.kind === "replay" && use.ok;
      if (!free && !session.takeCreate()) return undefined;
      const message = request.kind === "replay" ? use.message : `${use.message} (changed)`;
      const body = { ...use.body, message };
      const conversationId = typeof use.body.conversation_id === "string" ? use.body.conversation_id : null;
      return { kind: "create", endpoint: request.endpoint, who: use.who, identity, key: use.key, message, body, conversationId, replay: free, slot: undefined };
    }
    case "list": {
      const state = liveSlot(session, request.slot);
      if (state === undefined) return undefined;
      const identity = session.identity(state.owner);
      if (identity === undefined) return undefined;
      const query = { ...(request.page === undefined ? {} : { page: request.page }), ...(request.pageSize === undefined ? {} : { pageSize: request.pageSize }) };
      return { kind: "list", who: state.owner, identity, conversationId: state.id, query, settle };
    }
    case "delete": {
      const state = liveSlot(session, request.slot);
      if (state === undefined) return undefined;
      const identity = session.identity(state.owner);
      if (identity === undefined) return undefined;
      return { kind: "delete", who: state.owner, identity, conversationId: state.id, slot: session.slots.indexOf(state) === 1 ? 1 : 0 };
    }
    case "foreign": {
      const state = liveSlot(session, request.slot);
      const identity = session.identity(request.who);
      if (state === undefined || identity === undefined) return undefined;
      if (request.action === "list") return { kind: "list", who: request.who, identity, conversationId: state.id, query: {}, settle: false };
      if (request.action === "delete") return { kind: "delete", who: request.who, identity, conversationId: state.id, slot: undefined };
      if (!session.takeCreate()) return undefined;
      const message = session.target.message("foreign");
      const key = session.target.idempotencyKey("foreign");
      return { kind: "create", endpoint: request.endpoint, who: request.who, identity, key, message, body: { message, conversation_id: state.id }, conversationId: state.id, replay: false, slot: undefined };
    }
  }
}

/** The slot's conversation, or the other slot's when this one has none: a command always meets one if there is one. */
function liveSlot(session: Session, slot: Slot): SlotState | undefined {
  return session.slot(slot) ?? session.slot(slot === 0 ? 1 : 0);
}

/** The key a replay or a reuse names: by position, or the first or last of a slot's conversation. */
function pickKey(session: Session, pick: KeyPick): KeyUse | undefined {
  if (typeof pick === "number") return session.keys[pick % Math.max(1, session.keys.length)];
  const id = liveSlot(session, pick.slot)?.id.toLowerCase();
  const ofSlot = session.keys.filter((k) => k.ok && k.who === "primary" && k.conversationId?.toLowerCase() === id);
  return pick.which === "first" ? ofSlot[0] : ofSlot.at(-1);
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

/** Sends one call on one lane and records it; a listing to settle is read again until the model accepts it. */
interface SendOptions {
  /** Sent at once with others: every answer is a verdict, a 409 "in use" included. */
  readonly inGroup: boolean;
  readonly onEvent?: (name: string | undefined) => void;
}

async function send(session: Session, call: Call, lane: number, { inGroup, onEvent }: SendOptions): Promise<Entry> {
  const client = session.target.lanes[lane % session.target.lanes.length];
  if (client === undefined) throw new Error("the property needs at least one lane");
  const index = session.nextIndex();
  const agent = call.identity.agentId;

  if (call.kind === "list") {
    const path = `/v1/agents/${agent}/conversations/${call.conversationId}/messages${describeQuery(call.query) === "no parameters" ? "" : `?${describeQuery(call.query)}`}`;
    const query = { ...(call.query.page === undefined ? {} : { page: call.query.page }), ...(call.query.pageSize === undefined ? {} : { page_size: call.query.pageSize }) };
    const deadline = now() + session.target.settleMs;
    for (let wait = 50; ; wait = Math.min(wait * 2, 500)) {
      const start = now();
      const answer = await answerOf(() => client.list(call.conversationId, { as: call.identity, query, retryInUse: true }));
      const end = now();
      const judged = judgeListing(answer, index);
      const op: ListOp = { kind: "list", index, start, end, who: call.who, conversationId: call.conversationId, query: call.query, outcome: judged.outcome };
      const total = judged.outcome.type === "ok" ? ` total ${judged.outcome.value.total}, ${judged.outcome.value.items.length} item(s)` : "";
      const entry: Entry = { op, lane, method: "GET", path, answer: describeOutcome(judged, total), transcript: transcriptOf(answer) };
      fail(session, judged.problem);
      if (!call.settle || judged.problem !== undefined || session.accepts(entry) || now() + wait > deadline) return entry;
      await sleep(wait);
    }
  }

  if (call.kind === "delete") {
    const path = `/v1/agents/${agent}/conversations/${call.conversationId}`;
    const start = now();
    const answer = await answerOf(() => client.delete(call.conversationId, { as: call.identity }));
    const end = now();
    const judged = judgeDeletion(answer);
    const op: DeleteOp = { kind: "delete", index, start, end, who: call.who, conversationId: call.conversationId, outcome: judged.outcome };
    const state = call.slot === undefined ? undefined : session.slot(call.slot);
    if (judged.outcome.type === "ok" && state !== undefined && state.id === call.conversationId) state.deleted = true;
    return { op, lane, method: "DELETE", path, answer: describeOutcome(judged, ""), transcript: transcriptOf(answer) };
  }

  const path = `/v1/agents/${agent}/responses${call.endpoint === "stream" ? "/stream" : ""}`;
  const options = {
    as: call.identity,
    body: call.body,
    idempotencyKey: call.key,
    replay: call.replay,
    retryInUse: !inGroup,
    ...(onEvent === undefined ? {} : { onEvent: (e: { event: string | undefined }) => onEvent(e.event) }),
  };
  const start = now();
  const answer = call.endpoint === "stream" ? await answerOf(() => client.stream(options)) : await answerOf(() => client.create(options));
  const end = now();
  const judged = call.endpoint === "stream" ? judgeStreamCreate(answer as Answer<StreamResult>, index) : judgePlainCreate(answer as Answer<HttpResult>, index);
  const op: CreateOp = {
    kind: "create", index, start, end, who: call.who, endpoint: call.endpoint, key: call.key, message: call.message,
    conversationId: call.conversationId, payload: canonicalJson(call.body), outcome: judged.outcome,
  };
  fail(session, judged.problem);
  if (!call.replay && judged.outcome.type === "refused") session.returnCreate();
  afterCreate(session, call, judged.outcome, lane);
  const conversation = judged.outcome.type === "ok" ? ` conversation ${judged.outcome.value.conversationId}` : "";
  return { op, lane, method: "POST", path, answer: describeOutcome(judged, call.endpoint === "stream" ? ` completed${conversation}` : conversation), transcript: transcriptOf(answer) };
}

/** What a create changes in the session: a slot started or left, a key remembered, a conversation to clean up. */
function afterCreate(session: Session, call: Extract<Call, { kind: "create" }>, outcome: CreateOp["outcome"], lane: number): void {
  const ok = outcome.type === "ok";
  if (ok) {
    session.target.track(outcome.value.conversationId, call.identity);
    const id = outcome.value.conversationId.toLowerCase();
    if (!session.owners.has(id)) session.owners.set(id, { id: outcome.value.conversationId, who: call.who });
  }
  const known = session.keys.findIndex((k) => k.key === call.key && k.who === call.who);
  const conversationId = ok ? outcome.value.conversationId : undefined;
  if (known === -1) session.keys.push({ key: call.key, message: call.message, body: call.body, who: call.who, endpoint: call.endpoint, lane, ok, conversationId });
  else if (ok && session.keys[known]?.ok === false && !call.replay) session.keys[known] = { ...(session.keys[known] as (typeof session.keys)[number]), ok: true, lane, conversationId };
  if (call.slot === undefined) return;
  const state = session.slot(call.slot);
  if (state === undefined && ok && call.conversationId === null) session.slots[call.slot] = { id: outcome.value.conversationId, owner: call.who, deleted: false };
  // Continuing a deleted conversation is tried once; then the slot starts a new one.
  else if (state !== undefined && call.afterDelete === true) session.slots[call.slot] = undefined;
}

function fail(session: Session, problem: Violation | undefined): void {
  if (problem !== undefined && session.failure === undefined) {
    session.failure = problem;
    session.model = { ...session.model, failed: problem };
  }
}
