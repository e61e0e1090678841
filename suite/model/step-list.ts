/**
 * A listing, stepped in one world: who may read the conversation, whether it still exists, and
 * whether its messages are the exchanges that took effect, each once, in the order they took
 * effect, counted the way this service counts them. What one page shows by itself (shape,
 * echoed parameters, arithmetic) is judged before, once for all worlds (model.ts).
 */
import { exchangeRequirement, scopeRequirement } from "./requirements.ts";
import { changedCopiesOf, marksOf, originOf, otherTexts, type Mark } from "./items.ts";
import { countingText, expectedTotal, opList, pageHolds, settledBy } from "./listing-words.ts";
import { holdsWholeConversation, type ListOp, type ListingValue } from "./operation.ts";
import { instantOf } from "./timestamps.ts";
import { joinWords, violation, words, type Violation, type Words } from "./violation.ts";
import {
  allowsCounting,
  conversationKey,
  latePlacements,
  withConversation,
  withRecordedKey,
  type ConversationState,
  type Counting,
  type CountingPair,
  type ExchangeRecord,
  type World,
} from "./world.ts";
import { afterOverlapping, type Step, type StepContext } from "./step.ts";

/** At most this many messages before a conversation's first exchange (a greeting, a system prompt). */
const MAX_BASE = 2;

export function stepList(world: World, op: ListOp, context: StepContext): Step {
  const conversation = world.conversations.get(conversationKey(op.conversationId));
  if (conversation === undefined) return { worlds: [world] };
  const outcome = op.outcome;
  const first = conversation.exchanges[0]?.op ?? op.index;

  if (conversation.owner !== op.who) {
    if (outcome.type === "ok") {
      return {
        violation: violation(
          scopeRequirement(op.who, "list"),
          words`#${op.index} (${op.who}) listed conversation ${conversation.id} of ${conversation.owner}: answered ${outcome.status}`,
          [first, op.index],
          words`a refusal (404 conversation_not_found), nothing of it shown`,
        ),
      };
    }
    return { worlds: [world] };
  }
  if (conversation.deletedBy !== undefined) {
    if (outcome.type !== "ok") return { worlds: [world] };
    // Listed 2xx after its delete breaks DEL-1 whatever brought it back; a replay that did is named as the cause.
    const replayAfter = conversation.suspects.find(
      (s) => s.op > (conversation.deletedBy ?? 0) && s.requirement.startsWith("IDEM"),
    );
    const cause = replayAfter === undefined ? "" : words` after ${replayAfter.why}`;
    const found = violation(
      "DEL-1",
      words`#${op.index} listed conversation ${conversation.id}, deleted by #${conversation.deletedBy}, and was answered ${outcome.status} with ${outcome.value.total} message(s)${cause}`,
      [conversation.deletedBy, ...(replayAfter === undefined ? [] : [replayAfter.op]), op.index],
      words`a refusal (4xx): #${conversation.deletedBy} deleted it for good`,
    );
    // A listing that overlapped its delete may have been served first.
    return { violation: afterOverlapping(found, conversation.deletedBy, context) };
  }
  if (outcome.type === "refused") {
    if (outcome.status === 429) return { worlds: [world] };
    const requirement = conversation.exchanges.every((e) => e.endpoint === "stream") ? "SSE-8" : "RESP-2";
    return {
      violation: violation(
        requirement,
        words`#${op.index} listed conversation ${conversation.id} (${conversation.exchanges.length} exchange(s), the first #${first}) and was refused with ${outcome.status}`,
        [first, op.index],
        words`2xx, listing its ${conversation.exchanges.length} exchange(s) (${opList(conversation.exchanges.map((e) => e.op))})`,
      ),
    };
  }
  if (outcome.type === "unknown") return { worlds: [world] };
  const plain = judgeWithLate(world, conversation, op, outcome.value, context);
  const views =
    op.lagsFrom === undefined ? [] : laggingViews(world, conversation, op, op.lagsFrom, outcome.value, context);
  const step: Step =
    views.length === 0
      ? plain
      : "violation" in plain
        ? { worlds: views }
        : { ...plain, worlds: [...plain.worlds, ...views] };
  const settledBefore = op.settledBefore;
  if (settledBefore === undefined || "violation" in step) return step;
  return { ...step, worlds: step.worlds.map((w) => withoutSettledLate(w, conversation.id, settledBefore)) };
}

/**
 * Exchanges of unknown outcome that the service answered before `settledBefore` and this
 * listing does not show never will: each world in which one still may arrive would double the
 * worlds of every later step.
 */
function withoutSettledLate(world: World, id: string, settledBefore: number): World {
  const key = conversationKey(id);
  const waiting = world.late.get(key);
  if (waiting === undefined) return world;
  const still = waiting.filter((e) => !e.answered || e.end >= settledBefore);
  if (still.length === waiting.length) return world;
  const late = new Map(world.late);
  if (still.length > 0) late.set(key, still);
  else late.delete(key);
  return { ...world, late };
}

/**
 * A listing that may lag shows the conversation as it was before some of its latest exchanges,
 * those ended after `lagsFrom`. A page that fits the whole conversation by one lesson (4 messages
 * of 3 exchanges: one each, after one) may fit a shorter one by another (2 each, the third not
 * shown yet): the worlds of every such reading, the exchanges kept.
 */
function laggingViews(
  world: World,
  conversation: ConversationState,
  op: ListOp,
  lagsFrom: number,
  page: ListingValue,
  context: StepContext,
): World[] {
  const all = conversation.exchanges;
  const worlds: World[] = [];
  for (let shown = all.length - 1; shown >= 1 && (all[shown]?.end ?? -Infinity) > lagsFrom; shown--) {
    const earlier = { ...conversation, exchanges: all.slice(0, shown) };
    const view = judgeContents(withConversation(world, earlier), earlier, op, page, context);
    if ("violation" in view) continue;
    for (const w of view.worlds) {
      const seen = w.conversations.get(conversationKey(conversation.id));
      worlds.push(seen === undefined ? w : withConversation(w, { ...seen, exchanges: all }));
    }
  }
  return worlds;
}

/**
 * The page judged as the world stands, and with each prefix of the exchanges that may still
 * have arrived late (stored after their request's answer) taken in at its end: every reading
 * that explains the page stays possible; when none does, the plain reading's violation stands.
 */
function judgeWithLate(
  world: World,
  conversation: ConversationState,
  op: ListOp,
  page: ListingValue,
  context: StepContext,
): Step {
  const id = conversationKey(conversation.id);
  const late = world.late.get(id) ?? [];
  const plain = judgeContents(world, conversation, op, page, context);
  if (late.length === 0) return plain;
  const worlds = "violation" in plain ? [] : [...plain.worlds];
  const warnings = "violation" in plain ? [] : [...(plain.warnings ?? [])];
  for (let k = 1; k <= late.length; k++) {
    const rest = new Map(world.late);
    if (k === late.length) rest.delete(id);
    else rest.set(id, late.slice(k));
    const arrived = late.slice(0, k);
    // What arrived took effect after all: its key is bound as if it had at once.
    const keyed = arrived.reduce<World>((w, e) => (e.record === undefined ? w : withRecordedKey(w, e.record)), {
      ...world,
      late: rest,
    });
    for (const exchanges of latePlacements(
      conversation,
      arrived.map(({ record: _record, ...exchange }) => exchange),
    )) {
      const grown = { ...conversation, exchanges };
      const step = judgeContents(withConversation(keyed, grown), grown, op, page, context);
      if ("violation" in step) continue;
      worlds.push(...step.worlds);
      warnings.push(...(step.warnings ?? []));
    }
  }
  if (worlds.length === 0) return plain;
  // The page as it stands showed an exchange stored in part, and only a counting no listing had
  // settled yet explains it whole: should that counting fall later, the part stored explains more.
  const ruledOut =
    "violation" in plain ? (plain.violation.inPart !== undefined ? plain.violation : undefined) : plain.ruledOut;
  return { worlds, ...(warnings.length === 0 ? {} : { warnings }), ...(ruledOut === undefined ? {} : { ruledOut }) };
}

/**
 * Whether the page shows a changed copy of a message (originOf) that is not `lost`'s: then the
 * exchange whose text was changed is the one that went wrong, and a verdict that names `lost`
 * strays (service.ts, strayingOf).
 */
function anotherChangedThan(lost: ExchangeRecord, page: ListingValue, known: ReadonlySet<string>): boolean {
  const changed = otherTexts(page.items, known).flatMap((text) => originOf(text, known) ?? []);
  return changed.length > 0 && !changed.includes(lost.message);
}

function judgeContents(
  world: World,
  conversation: ConversationState,
  op: ListOp,
  page: ListingValue,
  context: StepContext,
): Step {
  const exchanges = conversation.exchanges;
  const counting = narrowCounting(world.counting, page.total, exchanges.length);
  // Whether this page's total is what settled the counting (for the words only).
  const countedByThisTotal = counting.length === 1 && (world.counting === "any" || world.counting.length > 1);
  if (counting.length === 0) return { violation: explainTotal(world, conversation, op, page, context) };

  const known = new Set(context.messages.keys());
  const marks = marksOf(page.items, known);
  const complete = holdsWholeConversation(page);
  const counts = new Map<string, number>();
  for (const m of marks) counts.set(m.message, (counts.get(m.message) ?? 0) + 1);
  const shownCounts = exchanges.map((e) => counts.get(e.message) ?? 0).filter((c) => c > 0);
  const echo = world.echo !== "unknown" ? world.echo : learnedEcho(page, exchanges, shownCounts, complete);

  const order = judgeMarks(
    world,
    conversation,
    op,
    page,
    marks,
    counts,
    echo === "unknown" ? 1 : Math.max(1, echo),
    counting,
    countedByThisTotal,
    context,
    known,
  );
  if (typeof order !== "string") return { violation: order };

  if (typeof echo === "number" && echo > 0 && complete) {
    // Counted, not merely found: the same text sent twice shows twice, and one of two exchanges
    // that carry it can be the one lost (a total the service's unknown counting still explains).
    const { exchange: missing, byOrder } = underShown(conversation, marks, echo, counting);
    if (missing !== undefined) {
      const anotherShownChanged = anotherChangedThan(missing, page, known);
      const shownChanged = changedCopiesOf(page.items, [missing.message]).length > 0;
      return {
        violation: {
          ...(byOrder ? { byOrder: true as const } : {}),
          ...(anotherShownChanged ? { anotherShownChanged: true as const } : {}),
          ...(shownChanged ? { shownChanged: true as const } : {}),
          ...violation(
            exchangeRequirement(missing.endpoint),
            words`#${op.index} listed conversation ${conversation.id} in full (${page.total} messages) without the exchange of #${missing.op}`,
            [missing.op, op.index],
            words`each of its ${exchanges.length} exchange(s) once (${opList(exchanges.map((e) => e.op))}) in ${expectedTotal(counting, exchanges.length, MAX_BASE)}: ${countingText(counting, MAX_BASE)}${settledBy(page.total, exchanges.length, countedByThisTotal)}`,
          ),
          lost: missing.op,
        },
      };
    }
  }

  const judged = judgeUpdatedAt(conversation, op, page);
  const updated = { ...judged.conversation, listed: exchanges.length };
  const warning = judged.warning;
  const next = withConversation({ ...world, counting, echo, order }, updated);
  const ruledOut =
    countedByThisTotal && complete
      ? inPartByAnotherCounting(world, counting, conversation, op, page, marks)
      : undefined;
  return {
    worlds: [next],
    ...(warning === undefined ? {} : { warnings: [warning] }),
    ...(ruledOut === undefined ? {} : { ruledOut }),
  };
}

/**
 * The other reading of a total that settled the service's counting: by a counting it ruled out,
 * an exchange stored in part (its message where that counting puts it, the total short of it by
 * less than an exchange adds). A service that stores the question at once and the answer only
 * once the client stayed to the end, listed first after a dropped stream, teaches the model a
 * counting of one message per exchange after one before the first; when a later listing belies
 * it, the part stored explains more than a total that nothing explains (linearize.ts, judgeGroup).
 */
function inPartByAnotherCounting(
  world: World,
  counting: readonly CountingPair[],
  conversation: ConversationState,
  op: ListOp,
  page: ListingValue,
  marks: readonly Mark[],
): Violation | undefined {
  const n = conversation.exchanges.length;
  // While any counting was open: those by which the total holds every exchange but one in part.
  const open =
    world.counting !== "any"
      ? world.counting
      : Array.from({ length: MAX_BASE + 1 }, (_, base) =>
          Array.from({ length: Math.max(0, page.total - 1) }, (_, i) => ({ base, perExchange: i + 2 })),
        ).flat();
  const others = open.filter((c) => !allowsCounting(counting, c) && c.perExchange >= 2);
  if (n === 0 || others.length === 0) return undefined;
  const partial = storedInPartInPlace({ ...world, counting: others }, conversation, page.total, marks);
  return partial === undefined
    ? undefined
    : storedInPart(
        op,
        conversation,
        page,
        partial,
        words`each of its ${n} exchange(s) whole (${opList(conversation.exchanges.map((e) => e.op))}): ${countingText(others, MAX_BASE)}`,
      );
}

/** The verdict on an exchange a complete page shows in part; one its client left is the plainer reading. */
function storedInPart(
  op: ListOp,
  conversation: ConversationState,
  page: ListingValue,
  partial: ExchangeRecord,
  expected: Words,
): Violation {
  return {
    ...violation(
      exchangeRequirement(partial.endpoint),
      words`#${op.index} listed conversation ${conversation.id} with total ${page.total}: the exchange of #${partial.op} is stored in part (its message is listed, but fewer messages than an exchange holds)`,
      [partial.op, op.index],
      expected,
    ),
    inPart: partial.op,
    ...(partial.unfinished === true ? {} : { inPartDelivered: true as const }),
  };
}

/** The (base, per exchange) pairs still possible after a listing of `total` messages for `n` exchanges. */
function narrowCounting(counting: Counting, total: number, n: number): readonly CountingPair[] {
  if (counting !== "any") return counting.filter((c) => c.base + c.perExchange * n === total);
  const pairs: CountingPair[] = [];
  for (let base = 0; base <= Math.min(MAX_BASE, total); base++) {
    const rest = total - base;
    if (n > 0 && rest >= n && rest % n === 0) pairs.push({ base, perExchange: rest / n });
  }
  return pairs;
}

/**
 * A total no counting explains: too few (an exchange lost) or too many (something counted
 * twice). The items tell when they show the messages sent; otherwise the service's counting,
 * simplest first (no messages before the first exchange), says how many exchanges the total holds.
 */
function explainTotal(
  world: World,
  conversation: ConversationState,
  op: ListOp,
  page: ListingValue,
  context: StepContext,
): Violation {
  const exchanges = conversation.exchanges;
  // The counting this service showed before this listing, which the total contradicts.
  const expected = words`${expectedTotal(world.counting, exchanges.length, MAX_BASE)} for its ${exchanges.length} exchange(s) (${opList(exchanges.map((e) => e.op))}): ${countingText(world.counting, MAX_BASE)}`;
  const known = new Set(context.messages.keys());
  const marks = marksOf(page.items, known);
  const complete = holdsWholeConversation(page);
  const unshown =
    complete && marks.length > 0
      ? underShown(conversation, marks, typeof world.echo === "number" && world.echo > 0 ? world.echo : 1).exchange
      : undefined;
  const missing = (lost: ExchangeRecord | undefined, how: string): Violation => {
    const found: Violation = {
      ...(lost !== undefined && anotherChangedThan(lost, page, known) ? { anotherShownChanged: true as const } : {}),
      ...violation(
        lost === undefined ? "RESP-2" : exchangeRequirement(lost.endpoint),
        words`#${op.index} listed conversation ${conversation.id} with total ${page.total}: an exchange is missing${lost === undefined ? "" : words` (the exchange of #${lost.op} ${how})`}`,
        [...(lost === undefined ? [] : [lost.op]), op.index],
        expected,
      ),
    };
    // An exchange that overlapped the listing is missing only in this world's order of the two.
    return lost === undefined ? found : afterOverlapping(found, lost.op, context);
  };
  if (unshown !== undefined) return { ...missing(unshown, "is not among the items"), lost: unshown.op };
  const held = exchangesHeld(world.counting, page.total, exchanges.length);
  if (held !== undefined && held < exchanges.length) return missing(exchanges.at(-1), "is the latest");
  const more = held !== undefined ? held > exchanges.length : world.counting === "any" && page.total > exchanges.length;
  const suspect = more ? extraSuspect(conversation, marks, world.echo, complete) : undefined;
  if (suspect !== undefined) {
    const found = violation(
      suspect.requirement,
      words`#${op.index} listed conversation ${conversation.id} with total ${page.total}, more than its exchanges: ${suspect.why}, and it took effect`,
      [suspect.op, op.index],
      expected,
    );
    // "More" by the counting the totals taught: that counting is all it rests on.
    return held !== undefined ? { ...found, onCounting: true } : found;
  }
  const partial = complete
    ? (partlyStored(world, conversation, page.total, marks) ??
      storedInPartInPlace(world, conversation, page.total, marks))
    : undefined;
  if (partial !== undefined) return storedInPart(op, conversation, page, partial, expected);
  return {
    ...violation(
      "LIST-5",
      words`#${op.index} listed conversation ${conversation.id} with total ${page.total}, which its exchanges do not explain`,
      [op.index],
      expected,
    ),
    onCounting: true,
    // More than its exchanges while an exchange that overlapped the listing has not taken effect in
    // this world: the order that puts it before the listing may explain the total, and another
    // world's verdict names more (two texts stored changed, each beside the page: seed 28000 of
    // astral-characters-as-question-marks, reported as LIST-5 before).
    ...(more && overlappingUntaken(world, context) ? { byOrder: true as const } : {}),
  };
}

/** Whether a create that overlapped this operation has not taken effect in this world. */
const overlappingUntaken = (world: World, context: StepContext) =>
  [...context.messages.values()].some((sender) => context.overlapping.has(sender) && !tookEffect(world, sender));

/**
 * An exchange of unknown outcome (a stream the client dropped, a request cut off) that a complete
 * page shows in part: its message is listed (more often than the exchanges that took effect carry
 * it), and the total lies between what the exchanges hold without it and with it, by a counting
 * the service may have shown. A service that stores the question when the exchange starts and
 * the answer only once it was delivered lists it so.
 */
function partlyStored(
  world: World,
  conversation: ConversationState,
  total: number,
  marks: readonly Mark[],
): ExchangeRecord | undefined {
  const counting = world.counting;
  if (counting === "any" || counting.length === 0) return undefined;
  const n = conversation.exchanges.length;
  // Another counting that fits the listings so far may be the wrong guess: one that places the total between is enough.
  const between = counting.some((c) => total > c.base + c.perExchange * n && total < c.base + c.perExchange * (n + 1));
  if (!between) return undefined;
  const shown = (message: string) => marks.filter((m) => m.message === message).length;
  const carried = (message: string) => conversation.exchanges.filter((e) => e.message === message).length;
  const late = world.late.get(conversationKey(conversation.id)) ?? [];
  const candidates = late.filter((l) => shown(l.message) > carried(l.message));
  return candidates.length === 1 ? candidates[0] : undefined;
}

/**
 * An exchange that took effect and that a complete page shows in part, found by where each
 * exchange's message sits. By a counting the service showed (each exchange adds the same number
 * of messages after the same base), the total lacks fewer messages than one exchange adds, and
 * exactly one exchange is such that every message before and at it sits where that counting puts
 * it and every one after it sits as much earlier as the total lacks; every counting that places
 * them so names the same exchange. A service that stores the question at once and the answer only
 * when the client stayed to the end lists a stream its client left so, also after a replay of its
 * key showed that it took effect.
 */
function storedInPartInPlace(
  world: World,
  conversation: ConversationState,
  total: number,
  marks: readonly Mark[],
): ExchangeRecord | undefined {
  const exchanges = conversation.exchanges;
  if (world.counting === "any" || exchanges.length === 0) return undefined;
  const sitsAt = (exchange: ExchangeRecord, position: number) =>
    marks.some((m) => m.message === exchange.message && m.position === position);
  const named = new Set<ExchangeRecord>();
  for (const c of world.counting) {
    const lacking = c.base + c.perExchange * exchanges.length - total;
    if (lacking <= 0 || lacking >= c.perExchange) continue;
    const fits = (inPart: number) =>
      exchanges.every((e, i) => sitsAt(e, c.base + c.perExchange * i - (i > inPart ? lacking : 0)));
    const candidates = exchanges.filter((_, i) => fits(i));
    // Two places fit: the items cannot tell which exchange lacks its messages.
    if (candidates.length > 1) return undefined;
    for (const candidate of candidates) named.add(candidate);
  }
  return named.size === 1 ? [...named][0] : undefined;
}

/**
 * The exchange a complete page lacks: one whose message shows on fewer items than the exchanges
 * that carry it need (the same text sent twice shows twice). Of several that carry one text, the
 * one whose place holds no item of its text, where the service's counting says where each
 * exchange's messages sit (the same text stored right by one endpoint and mangled by the other
 * shows where the mangled one sits); else one no earlier listing counted, then the latest.
 */
function underShown(
  conversation: ConversationState,
  marks: readonly Mark[],
  echo: number,
  counting?: Counting,
): { readonly exchange: ExchangeRecord | undefined; readonly byOrder: boolean } {
  const shown = new Map<string, number>();
  for (const m of marks) shown.set(m.message, (shown.get(m.message) ?? 0) + 1);
  const carrying = new Map<string, number>();
  for (const e of conversation.exchanges) carrying.set(e.message, (carrying.get(e.message) ?? 0) + 1);
  const candidates = conversation.exchanges.filter(
    (e) => (shown.get(e.message) ?? 0) < echo * (carrying.get(e.message) ?? 0),
  );
  const only = counting !== undefined && counting !== "any" && counting.length === 1 ? counting[0] : undefined;
  let placesContradicted = false;
  if (only !== undefined && echo === 1) {
    const outOfPlace = candidates.filter((e) => {
      const from = only.base + only.perExchange * conversation.exchanges.indexOf(e);
      return !marks.some((m) => m.message === e.message && m.position >= from && m.position < from + only.perExchange);
    });
    if (outOfPlace.length > 0 && outOfPlace.length < candidates.length)
      return { exchange: outOfPlace.at(-1), byOrder: false };
    // The text shows where none of them sits in this world's order: its guess at the order is
    // what the listing contradicts, and another order places them (and names the lost one).
    placesContradicted = candidates.length > 1 && outOfPlace.length === candidates.length;
  }
  const unlisted = candidates.filter((e) => conversation.exchanges.indexOf(e) >= (conversation.listed ?? 0));
  return { exchange: (unlisted.length > 0 ? unlisted : candidates).at(-1), byOrder: placesContradicted };
}

/**
 * How many items show each exchange's message, learned from the first complete listing that shows
 * a message sent. One that shows none teaches nothing, unless it shows a sent text changed
 * (changedCopiesOf): a service that never lists the texts sent and one that mangled the only text
 * sent so far (an escape applied twice, a character it cannot store) differ only there, and taking
 * the second for the first would let it mangle every later text unseen (seed 24002 of
 * astral-characters-as-question-marks: the only astral text on the broken path came first).
 */
function learnedEcho(
  page: ListingValue,
  exchanges: readonly ExchangeRecord[],
  shownCounts: readonly number[],
  complete: boolean,
): World["echo"] {
  if (!complete) return "unknown";
  if (shownCounts.length > 0) return Math.min(...shownCounts);
  const changed = changedCopiesOf(
    page.items,
    exchanges.map((e) => e.message),
  );
  return changed.length > 0 ? 1 : "unknown";
}

/** Whether the operation's exchange took effect in this world, in whichever conversation. */
const tookEffect = (world: World, op: number) =>
  [...world.conversations.values()].some((c) => c.exchanges.some((e) => e.op === op));

/** How many exchanges `total` holds under the simplest counting that fits it; undefined when none does. */
function exchangesHeld(counting: Counting, total: number, n: number): number | undefined {
  if (counting === "any") return total < n ? total : undefined;
  for (const c of [...counting].sort((a, b) => a.base - b.base)) {
    const rest = total - c.base;
    if (rest >= 0 && rest % c.perExchange === 0) return rest / c.perExchange;
  }
  return undefined;
}

/**
 * What explains more messages than exchanges: a suspect whose message shows more often than the
 * exchanges that carry it account for; else, where the service lists no text it was sent, the
 * latest suspect. Where it lists the texts and none shows extra, no suspect: a refused request
 * whose text an exchange also carries is not blamed for a message nobody can name (an exchange of
 * unknown outcome may have taken effect with its text mangled).
 */
function extraSuspect(conversation: ConversationState, marks: readonly Mark[], echo: World["echo"], complete: boolean) {
  const counts = new Map<string, number>();
  for (const m of marks) counts.set(m.message, (counts.get(m.message) ?? 0) + 1);
  const perText = typeof echo === "number" && echo > 0 ? echo : 1;
  const carrying = (message: string) => conversation.exchanges.filter((e) => e.message === message).length;
  const shownExtra = (s: { message: string }) => (counts.get(s.message) ?? 0) > perText * carrying(s.message);
  const named = [...conversation.suspects].reverse().find(shownExtra);
  // Only a page holding every item can show that no text is there more often than its exchanges.
  const textsListed = typeof echo === "number" && echo > 0 && complete;
  return named ?? (textsListed ? undefined : conversation.suspects.at(-1));
}

/**
 * The exchanges a page shows: none twice, none from elsewhere, in one order (learned from the
 * first page showing two), and, once the counting is known, exactly those its window holds.
 * Returns the order learned, or the violation.
 */
function judgeMarks(
  world: World,
  conversation: ConversationState,
  op: ListOp,
  page: ListingValue,
  marks: readonly Mark[],
  counts: ReadonlyMap<string, number>,
  perExchange: number,
  counting: readonly CountingPair[],
  countedByThisTotal: boolean,
  context: StepContext,
  /** Every message the history sent (context.messages' keys), as the caller read the marks with. */
  known: ReadonlySet<string>,
): World["order"] | Violation {
  const index = new Map(conversation.exchanges.map((e, i) => [e.message, i]));
  // Two exchanges may carry one message (a key each endpoint ran once, where keys are per endpoint).
  const exchangesOf = (message: string) => conversation.exchanges.filter((e) => e.message === message).length;
  for (const [message, count] of counts) {
    const twice = index.has(message) && count > perExchange * exchangesOf(message);
    if (index.has(message) && !twice) continue;
    const mark = { message };
    const suspect = [...conversation.suspects].reverse().find((s) => s.message === mark.message);
    if (suspect !== undefined) {
      return violation(
        suspect.requirement,
        words`#${op.index} lists ${twice ? "a second time " : ""}the message of #${suspect.op} in conversation ${conversation.id}: ${suspect.why}, and it took effect`,
        [suspect.op, op.index],
        words`${twice ? words`the message of #${suspect.op} once, ` : words`no message of #${suspect.op}, `}each of its exchanges (${opList(conversation.exchanges.map((e) => e.op))}) once`,
      );
    }
    const sender = context.messages.get(mark.message);
    const found = violation(
      twice ? "LIST-5" : "LIST-7",
      words`#${op.index} lists ${twice ? "twice" : "in conversation " + conversation.id} the message of #${sender ?? "?"}${twice ? "" : ", which was never part of it"}`,
      [...(sender === undefined ? [] : [sender]), op.index],
      words`only its own exchanges (${opList(conversation.exchanges.map((e) => e.op))}), each once`,
    );
    // The message of an exchange that overlapped the page and has not taken effect in this world:
    // only this world's order puts it after the page, and the order that puts it before explains
    // more (a text stored changed beside it, seed 22001 of astral-characters-as-question-marks).
    return sender !== undefined && !twice && !tookEffect(world, sender)
      ? afterOverlapping(found, sender, context)
      : found;
  }

  // Each exchange's first item on the page stands for it; a message two exchanges carry says nothing of order.
  const firsts = marks.filter(
    (m, i) =>
      index.has(m.message) &&
      exchangesOf(m.message) === 1 &&
      marks.findIndex((other) => other.message === m.message) === i,
  );
  const positions = firsts.map((m) => index.get(m.message) ?? 0);
  let order = world.order;
  for (let i = 1; i < positions.length; i++) {
    const step: World["order"] = (positions[i] ?? 0) > (positions[i - 1] ?? 0) ? "oldest-first" : "newest-first";
    if (order === "unknown") order = step;
    else if (step !== order) {
      return {
        ...violation(
          "LIST-5",
          words`#${op.index} lists the exchanges of conversation ${conversation.id} out of order (${joinWords(
            positions.map((p) => words`#${conversation.exchanges[p]?.op}`),
            ", ",
          )})`,
          [op.index],
          words`${opList([...positions].sort((a, b) => (order === "oldest-first" ? a - b : b - a)).map((p) => conversation.exchanges[p]?.op ?? 0))}: the order they took effect, ${order === "oldest-first" ? "oldest" : "newest"} first as this service listed them before`,
        ),
        byOrder: true,
      };
    }
  }
  const window = windowProblem(conversation.exchanges, op, page, marks, counting, order, countedByThisTotal, known);
  return window ?? order;
}

/** With the counting known: exchanges wholly inside the page's window show, those wholly outside do not. */
function windowProblem(
  exchanges: readonly ExchangeRecord[],
  op: ListOp,
  page: ListingValue,
  marks: readonly Mark[],
  counting: readonly CountingPair[],
  order: World["order"],
  /** Whether this page's total is what settled the counting (for the words only). */
  countedByThisTotal: boolean,
  /** Every message the history sent. */
  known: ReadonlySet<string>,
): Violation | undefined {
  const only = counting.length === 1 ? counting[0] : undefined;
  if (only === undefined || order === "unknown" || marks.length === 0) return undefined;
  const offset = (page.page - 1) * page.pageSize;
  const length = page.items.length;
  // Positions counted oldest first.
  const from = order === "oldest-first" ? offset : page.total - offset - length;
  const to = from + length;
  const shown = new Set(marks.map((m) => m.message));
  for (const [j, e] of exchanges.entries()) {
    // A message two exchanges carry (one key run by each endpoint) cannot say which of them a page shows.
    if (exchanges.some((other) => other !== e && other.message === e.message)) continue;
    const start = only.base + j * only.perExchange;
    const end = start + only.perExchange;
    const inside = start >= from && end <= to;
    const outside = end <= from || start >= to;
    const holds = () => pageHolds(exchanges, { ...page, length }, only, order, [e.op], countedByThisTotal);
    if (inside && !shown.has(e.message)) {
      return {
        ...(changedCopiesOf(page.items, [e.message]).length > 0 ? { shownChanged: true as const } : {}),
        ...(anotherChangedThan(e, page, known) ? { anotherShownChanged: true as const } : {}),
        ...violation(
          exchangeRequirement(e.endpoint),
          words`#${op.index} listed page ${page.page} (size ${page.pageSize}, total ${page.total}) of conversation ${op.conversationId} without the exchange of #${e.op}`,
          [e.op, op.index],
          holds(),
        ),
        lost: e.op,
      };
    }
    if (outside && shown.has(e.message)) {
      return {
        ...violation(
          "LIST-5",
          words`#${op.index} listed page ${page.page} (size ${page.pageSize}, total ${page.total}) of conversation ${op.conversationId} with the exchange of #${e.op} on it`,
          [e.op, op.index],
          holds(),
        ),
        onCounting: true,
      };
    }
  }
  return undefined;
}

/** LIST-8 (a SHOULD): updated_at never goes back, and advances with an exchange at the service's resolution. */
function judgeUpdatedAt(
  conversation: ConversationState,
  op: ListOp,
  page: ListingValue,
): { conversation: ConversationState; warning?: Violation } {
  const instant = instantOf(page.updatedAt);
  if (instant === undefined) return { conversation };
  const seen = conversation.updatedAt;
  // The stamp was written by the end of the first listing that showed it.
  const sameStamp = seen !== undefined && instant.ms === seen.ms;
  const now = {
    ms: instant.ms,
    raw: page.updatedAt,
    exchanges: conversation.exchanges.length,
    at: sameStamp ? seen.at : op.end,
    op: sameStamp ? seen.op : op.index,
  };
  const updated = { ...conversation, updatedAt: now };
  if (seen === undefined) return { conversation: updated };
  const latest = conversation.exchanges.at(-1);
  // A new exchange must show only when the service's clock surely ticked since the stamp shown was written.
  const resolution = instant.wholeSeconds ? 1000 : 1;
  const newer = latest !== undefined && now.exchanges > seen.exchanges && latest.at - seen.at > resolution;
  if (instant.ms < seen.ms || (newer && instant.ms <= seen.ms)) {
    const what =
      instant.ms < seen.ms
        ? "went back"
        : words`did not advance with the exchange of #${latest?.op ?? "?"}${latest === undefined ? "" : ` (${conversation.exchanges.find((e) => e.op === latest.op)?.endpoint ?? ""})`}`;
    return {
      conversation: updated,
      warning: violation(
        "LIST-8",
        words`updated_at of conversation ${conversation.id} ${what}: ${JSON.stringify(seen.raw)} at #${seen.op}, ${JSON.stringify(page.updatedAt)} at #${op.index}`,
        [seen.op, ...(latest === undefined ? [] : [latest.op]), op.index],
        instant.ms < seen.ms
          ? words`an updated_at no earlier than ${JSON.stringify(seen.raw)} (#${seen.op})`
          : words`an updated_at later than ${JSON.stringify(seen.raw)} (#${seen.op}), after the exchange of #${latest?.op ?? "?"}`,
      ),
    };
  }
  return { conversation: updated };
}
