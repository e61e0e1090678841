/**
 * The minimal history, sent once more against the target with fresh keys and messages (and
 * the conversations it starts), operations that overlapped sent at once again. When the model
 * finds the same requirement broken, the counterexample is confirmed; a timing bug may not
 * show twice, and the original history stands as the evidence either way.
 */
import { isWho, overlaps, type CreateOp, type Op } from "../model/operation.ts";
import type { Counterexample } from "../report/report-types.ts";
import type { Violation } from "../model/violation.ts";
import { sendCalls, type Call } from "./execute.ts";
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

/** Creates the replay may spend: every create but those repeating a key that already answered 2xx. */
export function createsToReplay(entries: readonly Entry[]): number {
  const answered = new Set<string>();
  let creates = 0;
  for (const { op } of [...entries].sort((a, b) => a.op.start - b.op.start)) {
    if (op.kind !== "create") continue;
    const key = `${op.who} ${op.key}`;
    if (!answered.has(key)) creates++;
    if (op.outcome.type === "ok") answered.add(key);
  }
  return creates;
}

export async function confirm(target: InteractionTarget, entries: readonly Entry[], violation: Violation): Promise<Confirmation> {
  const creates = createsToReplay(entries);
  if (creates > target.remainingCreates()) return "not replayed: the create budget is spent";
  const session = new Session(target, creates);
  const fresh = new Map<string, string>();
  const rename = (kind: string, old: string, make: () => string) => {
    const id = `${kind} ${old}`;
    if (!fresh.has(id)) fresh.set(id, make());
    return fresh.get(id) ?? old;
  };
  const conversations = new Map<string, string>();
  for (const group of groupsOf(entries)) {
    const calls = group.map((entry) => callFor(session, target, entry.op, rename, conversations)).filter((c): c is Call => c !== undefined);
    const sent = await sendCalls(session, calls, group.length > 1);
    // Conversations the original started are known by the ids this replay got.
    sent.forEach((entry, i) => {
      const original = group[i]?.op;
      if (original?.kind === "create" && original.outcome.type === "ok" && entry.op.kind === "create" && entry.op.outcome.type === "ok") {
        conversations.set(original.outcome.value.conversationId.toLowerCase(), entry.op.outcome.value.conversationId);
      }
    });
    if (session.failure !== undefined) break;
  }
  return session.failure?.requirement === violation.requirement ? "confirmed" : "not reproduced by one replay";
}

function callFor(
  session: Session,
  target: InteractionTarget,
  op: Op,
  rename: (kind: string, old: string, make: () => string) => string,
  conversations: ReadonlyMap<string, string>,
): Call | undefined {
  const who = op.who;
  // A history the property recorded names only the property's own identities.
  if (!isWho(who)) return undefined;
  const identity = session.identity(who);
  if (identity === undefined) return undefined;
  const conversation = (id: string | null) => (id === null ? null : (conversations.get(id.toLowerCase()) ?? id));
  if (op.kind === "list") {
    const id = conversation(op.conversationId) ?? op.conversationId;
    return { kind: "list", who, identity, conversationId: id, query: op.query, settle: true };
  }
  if (op.kind === "delete") return { kind: "delete", who, identity, conversationId: conversation(op.conversationId) ?? op.conversationId, slot: undefined };
  const create: CreateOp = op;
  const key = rename("key", `${create.who} ${create.key ?? ""}`, () => target.idempotencyKey("confirm"));
  const message = rename("message", create.message, () => target.message("confirm"));
  const conversationId = conversation(create.conversationId);
  const replay = session.keys.some((k) => k.key === key && k.ok);
  if (!replay) session.takeCreate();
  const body = conversationId === null ? { message } : { message, conversation_id: conversationId };
  return { kind: "create", endpoint: create.endpoint, who, identity, key, message, body, conversationId, replay, slot: undefined };
}
