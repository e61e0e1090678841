/**
 * A counterexample as a person reads it: the numbered operations of the minimal history, one
 * line each with its connection (lane), what it sent and what came back, which operations it
 * overlapped; the model's expectation beside what came back; the requirement; and one command
 * that runs exactly this sequence again. Conversation ids, keys and messages are shown as
 * C1, K1 and m1 so the lines stay short; the report's JSON keeps the same names.
 */
import { overlaps } from "../model/operation.ts";
import { describeViolation, type Violation } from "../model/violation.ts";
import type { Counterexample, CounterexampleOperation } from "../report/report-types.ts";
import type { Entry } from "./session.ts";

export type { Counterexample, CounterexampleOperation } from "../report/report-types.ts";

/** Short names for the long ids: C1, C2 for conversations, K1 for keys, m1 for messages. */
class Aliases {
  readonly #names = new Map<string, string>();
  readonly #counts = new Map<string, number>();

  name(kind: "C" | "K" | "m", value: string): string {
    // A conversation id is a UUID, one id in either case; a key or a message is exactly its text
    // (two keys that differ in case are two keys: named alike, a near-miss read as a reuse).
    const id = kind === "C" ? value.toLowerCase() : value;
    const known = this.#names.get(id);
    if (known !== undefined) return known;
    const n = (this.#counts.get(kind) ?? 0) + 1;
    this.#counts.set(kind, n);
    const alias = `${kind}${n}`;
    this.#names.set(id, alias);
    return alias;
  }

  /** Replaces every id already named, wherever it appears in `text`. */
  apply(text: string): string {
    let out = text;
    for (const [id, alias] of [...this.#names.entries()].sort((a, b) => b[0].length - a[0].length)) {
      const flags = alias.startsWith("C") ? "gi" : "g";
      out = out.replace(new RegExp(id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), flags), alias);
    }
    return out;
  }
}

export function buildCounterexample(
  entries: readonly Entry[],
  violation: Violation,
  context: {
    historyLength: number;
    seed: number;
    path: string;
    confirmation: Counterexample["confirmation"];
    replay: string;
  },
): Counterexample {
  const aliases = new Aliases();
  const sorted = [...entries].sort((a, b) => a.op.index - b.op.index);
  // Name conversations in the order they appear, then keys and messages.
  for (const { op } of sorted) {
    if (op.kind === "create") {
      if (op.outcome.type === "ok") aliases.name("C", op.outcome.value.conversationId);
      if (op.conversationId !== null) aliases.name("C", op.conversationId);
    } else aliases.name("C", op.conversationId);
  }
  for (const { op } of sorted) {
    if (op.kind !== "create") continue;
    if (op.key !== null) aliases.name("K", op.key);
    aliases.name("m", op.message);
  }
  const origin = Math.min(...sorted.map((e) => e.op.start));
  const operations = sorted.map((entry): CounterexampleOperation => {
    const { op } = entry;
    const sent =
      op.kind === "create"
        ? ` ${op.who === "primary" ? "" : `as ${op.who} `}key=${aliases.apply(op.key ?? "(none)")} message=${aliases.apply(op.message)}${op.conversationId === null ? "" : ` conversation=${aliases.apply(op.conversationId)}`}${aliases.apply(bodyExtras(entry))}`
        : op.who === "primary"
          ? ""
          : ` as ${op.who}`;
    return {
      n: op.index,
      lane: entry.lane,
      startMs: Math.round((op.start - origin) * 10) / 10,
      endMs: Math.round((op.end - origin) * 10) / 10,
      request: `${entry.method} ${aliases.apply(entry.path)}${sent}`,
      answer: aliases.apply(entry.answer),
      overlaps: sorted.filter((other) => other !== entry && overlaps(other.op, op)).map((other) => other.op.index),
      who: op.who,
    };
  });
  // Its operations named as the history now numbers them (#n), at display time.
  const described = describeViolation(violation);
  return {
    requirement: violation.requirement,
    message: aliases.apply(described.message),
    expected: described.expected === undefined ? undefined : aliases.apply(described.expected),
    operations,
    historyLength: context.historyLength,
    seed: context.seed,
    path: context.path,
    confirmation: context.confirmation,
    replay: context.replay,
  };
}

/** The body's fields beyond message and conversation, as sent (shortened): the shapes a bug may need. */
function bodyExtras(entry: Entry): string {
  const body = entry.sent?.body;
  if (body === undefined) return "";
  const shown = Object.entries(body).filter(([field]) => field !== "message" && field !== "conversation_id");
  const text = shown.map(([field, value]) => {
    const json = JSON.stringify(value);
    return ` ${field}=${json.length > 80 ? `${json.slice(0, 77)}...` : json}`;
  });
  if ("conversation_id" in body && body.conversation_id === null) text.unshift(" conversation_id=null");
  return text.join("");
}

/** The console's and the failure message's form. */
export function renderCounterexample(c: Counterexample): string {
  const lines = [
    `${c.requirement}: ${c.message}`,
    ...(c.expected === undefined ? [] : [`  expected: ${c.expected}`]),
    `  minimal history (${c.operations.length} of ${c.historyLength} operations, ${c.confirmation}):`,
    ...c.operations.map((o) => {
      const overlap = o.overlaps.length === 0 ? "" : ` (overlaps #${o.overlaps.join(", #")})`;
      return `    #${o.n} lane ${o.lane} ${o.request}${overlap} → ${o.answer}`;
    }),
    `  replay: ${c.replay}`,
  ];
  return lines.join("\n");
}
