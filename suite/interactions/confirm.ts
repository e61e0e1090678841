/**
 * The minimal history, sent once more against the target with fresh keys and messages (and
 * the conversations it starts), operations that overlapped sent at once again. When the model
 * finds the same requirement broken, the counterexample is confirmed; a timing bug may not
 * show twice, and the original history stands as the evidence either way.
 */
import { isWho, overlaps, type CreateOp } from "../model/operation.ts";
import type { Counterexample } from "../report/report-types.ts";
import type { Violation } from "../model/violation.ts";
import { randomUUID } from "node:crypto";
import type { Request } from "./commands.ts";
import { send } from "./execute.ts";
import { Session, type Entry, type InteractionTarget } from "./session.ts";

export type Confirmation = Counterexample["confirmation"];

/** Operations grouped as they overlapped, in the order they were sent. */
function groupsOf(entries: readonly Entry[]): Entry[][] {
  const groups: Entry[][] = [];
  for (const entry of [...entries].sort((a, b) => a.op.start - b.op.start)) {
    const last = groups.at(-1);
    if (last !== undefined && last.some((e) => overlaps(e.op, entry.op))) last.push(entry);
    else groups.push([entry]);
  }
  return groups;
}

/**
 * Creates the replay may spend: every create but those repeating a key that an earlier group
 * already answered 2xx. Requests sent at once each hold one while they run, a repeat of a key in
 * the same group included (one key on both endpoints raced): counting that repeat as free let a
 * replay ask for more than the property had declared, a harness error.
 */
export function createsToReplay(entries: readonly Entry[]): number {
  const answered = new Set<string>();
  let creates = 0;
  for (const group of groupsOf(entries)) {
    const creating = group.map((e) => e.op).filter((op) => op.kind === "create");
    creates += creating.filter((op) => !answered.has(`${op.who} ${op.key}`)).length;
    for (const op of creating) if (op.outcome.type === "ok") answered.add(`${op.who} ${op.key}`);
  }
  return creates;
}

export async function confirm(
  target: InteractionTarget,
  entries: readonly Entry[],
  violation: Violation,
): Promise<Confirmation> {
  const creates = createsToReplay(entries);
  if (creates > target.remainingCreates()) return "not replayed: the create budget is spent";
  const session = new Session(target, creates);
  const rename = renamer(entries, target);
  const conversations = new Map<string, string>();
  for (const group of groupsOf(entries)) {
    const planned = group.map((entry) => ({ entry, request: requestFor(session, entry, rename, conversations) }));
    const sendable = planned.filter((p): p is { entry: Entry; request: Request } => p.request !== undefined);
    const sent = await Promise.all(
      sendable.map(({ request }, lane) => send(session, request, lane, { inGroup: group.length > 1 })),
    );
    session.judge(sent);
    // Conversations the original started are known by the ids this replay got.
    sent.forEach((entry, i) => {
      const original = sendable[i]?.entry.op;
      if (
        original?.kind === "create" &&
        original.outcome.type === "ok" &&
        entry.op.kind === "create" &&
        entry.op.outcome.type === "ok"
      ) {
        conversations.set(original.outcome.value.conversationId.toLowerCase(), entry.op.outcome.value.conversationId);
      }
    });
    if (session.failure !== undefined) break;
  }
  return session.failure?.requirement === violation.requirement ? "confirmed" : "not reproduced by one replay";
}

/**
 * Keys and messages carry the run's names (`conf-<run>-…`); the replay swaps in its own run's,
 * keeping each letter's case and every other character, so near-misses, key lengths and texts
 * keep the relations the original had. Keys drawn as UUIDs get fresh ones, one per UUID.
 */
function renamer(entries: readonly Entry[], target: InteractionTarget): (text: string) => string {
  const runOf = (text: string) => /conf-([^-]+)-/i.exec(text)?.[1];
  const old = entries
    .map((e) => (e.op.kind === "create" ? runOf(e.op.message) : undefined))
    .find((r) => r !== undefined);
  const fresh = runOf(target.message("confirm"));
  const uuids = new Map<string, string>();
  return (text) => {
    let out = text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, (uuid) => {
      const lower = uuid.toLowerCase();
      if (!uuids.has(lower)) uuids.set(lower, randomUUID());
      return sameCase(uuids.get(lower) ?? lower, uuid);
    });
    if (old !== undefined && fresh !== undefined)
      out = out.replace(new RegExp(`conf-${old}-`, "gi"), (found) => sameCase(`conf-${fresh}-`, found));
    return out;
  };
}

/** `text` with the case of `pattern`, letter by letter. */
const sameCase = (text: string, pattern: string) =>
  [...text]
    .map((c, i) => (pattern[i] !== undefined && pattern[i] !== pattern[i]?.toLowerCase() ? c.toUpperCase() : c))
    .join("");

function requestFor(
  session: Session,
  entry: Entry,
  rename: (text: string) => string,
  conversations: ReadonlyMap<string, string>,
): Request | undefined {
  const { op } = entry;
  const who = op.who;
  // A history the property recorded names only the property's own identities.
  if (!isWho(who) || session.identity(who) === undefined) return undefined;
  const conversation = (id: string) => conversations.get(id.toLowerCase()) ?? id;
  if (op.kind === "list")
    return { kind: "list", who, conversationId: conversation(op.conversationId), query: op.query, cells: [] };
  if (op.kind === "delete") return { kind: "delete", who, conversationId: conversation(op.conversationId), cells: [] };
  const create: CreateOp = op;
  const original = entry.sent?.body ?? {
    message: create.message,
    ...(create.conversationId === null ? {} : { conversation_id: create.conversationId }),
  };
  const body = JSON.parse(rename(JSON.stringify(original))) as Record<string, unknown>;
  if (typeof body.conversation_id === "string") body.conversation_id = conversation(body.conversation_id);
  const key = rename(create.key ?? "");
  const replay = session.keys.some((k) => k.key === key && k.status === "completed");
  if (!replay) session.takeCreate();
  const message = typeof body.message === "string" ? body.message : rename(create.message);
  return {
    kind: "create",
    who,
    endpoint: create.endpoint,
    key,
    body,
    message,
    tag: rename(entry.sent?.tag ?? ""),
    replay,
    charged: !replay,
    optionalFields: create.optionalFields === true,
    ...(create.openShape === undefined ? {} : { openShape: create.openShape }),
    ...(entry.sent?.dropped === undefined ? {} : { drop: entry.sent.dropped }),
    cells: [],
  };
}
