import { describe, expect, test } from "vitest";
import { judgeHistory, tookEffectFirst } from "./model.ts";
import { describeViolation, renumberViolation, type Violation } from "./violation.ts";
import {
  canonicalJson,
  type CreateOp,
  type CreateResult,
  type DeleteOp,
  type Endpoint,
  type ListOp,
  type Op,
  type Who,
} from "./operation.ts";

const A = "0b7c6a52-5a3e-4d7e-9a34-6f7c1d2e3f40";
const B = "1c8d7b63-6b4f-4e8f-8b45-7a8d2e3f4051";

/** A history written by hand: each operation takes 10 ms after the previous one, unless told otherwise. */
class History {
  readonly ops: Op[] = [];
  #clock = 0;

  #times(at?: { start: number; end: number }) {
    if (at !== undefined) return at;
    this.#clock += 10;
    return { start: this.#clock, end: this.#clock + 5 };
  }

  create(options: {
    endpoint?: Endpoint;
    who?: Who;
    key?: string | null;
    message: string;
    continues?: string;
    answer?: CreateResult | { refused: number } | { unknown: true };
    at?: { start: number; end: number };
    payloadExtra?: string;
    raw?: string;
  }): number {
    const index = this.ops.length + 1;
    const body = {
      message: options.message,
      ...(options.continues === undefined ? {} : { conversation_id: options.continues }),
      ...(options.payloadExtra === undefined ? {} : { metadata: { x: options.payloadExtra } }),
    };
    const answer = options.answer ?? {
      conversationId: options.continues ?? A,
      text: `answer to ${options.message}`,
      citations: "[]",
    };
    const outcome: CreateOp["outcome"] =
      "refused" in answer
        ? { type: "refused", status: answer.refused, code: undefined }
        : "unknown" in answer
          ? { type: "unknown", status: 500, reason: "500" }
          : { type: "ok", status: 200, value: answer };
    this.ops.push({
      kind: "create",
      index,
      ...this.#times(options.at),
      who: options.who ?? "primary",
      endpoint: options.endpoint ?? "plain",
      key: options.key === undefined ? `key-${index}` : options.key,
      message: options.message,
      conversationId: options.continues ?? null,
      payload: canonicalJson(body),
      ...(options.raw === undefined ? {} : { raw: options.raw }),
      outcome,
    });
    return index;
  }

  list(
    conversationId: string,
    messages: readonly string[],
    options: {
      who?: Who;
      query?: ListOp["query"];
      perExchange?: number;
      updatedAt?: string;
      refused?: number;
      total?: number;
      /** Positions of items the service lost (a message stored without the rest of its exchange): the total counts without them. */
      lost?: readonly number[];
      at?: { start: number; end: number };
      settleMs?: number;
    } = {},
  ): number {
    const index = this.ops.length + 1;
    const items = messages
      .flatMap((m) => [
        { role: "user", content: m },
        ...Array.from({ length: (options.perExchange ?? 2) - 1 }, () => ({
          role: "assistant",
          content: `answer to ${m}`,
        })),
      ])
      .filter((_, i) => !(options.lost ?? []).includes(i));
    const page = options.query?.page ?? 1;
    const pageSize = options.query?.pageSize ?? 50;
    const total = options.total ?? items.length;
    const shown = items.slice((page - 1) * pageSize, page * pageSize);
    const outcome: ListOp["outcome"] =
      options.refused !== undefined
        ? { type: "refused", status: options.refused, code: "conversation_not_found" }
        : {
            type: "ok",
            status: 200,
            value: {
              conversationId,
              page,
              pageSize,
              total,
              hasMore: page * pageSize < total,
              items: shown,
              createdAt: "2026-11-25T10:00:00.000Z",
              updatedAt: options.updatedAt ?? `2026-11-25T10:00:00.${String(index).padStart(3, "0")}Z`,
            },
          };
    const times = this.#times(options.at);
    this.ops.push({
      kind: "list",
      index,
      ...times,
      who: options.who ?? "primary",
      conversationId,
      query: options.query ?? {},
      outcome,
      ...(options.settleMs === undefined ? {} : { settledBefore: times.start - options.settleMs }),
    });
    return index;
  }

  delete(
    conversationId: string,
    options: { who?: Who; status?: number; at?: { start: number; end: number } } = {},
  ): number {
    const index = this.ops.length + 1;
    const status = options.status ?? 204;
    const outcome: DeleteOp["outcome"] =
      status < 300 ? { type: "ok", status, value: null } : { type: "refused", status, code: "conversation_not_found" };
    this.ops.push({
      kind: "delete",
      index,
      ...this.#times(options.at),
      who: options.who ?? "primary",
      conversationId,
      outcome,
    });
    return index;
  }
}

/** A violation's message and expectation as printed (#n rendered), if there is one. */
const described = (v: Violation | undefined) =>
  v === undefined ? { message: undefined, expected: undefined } : describeViolation(v);

const failuresOf = (h: History) => judgeHistory(h.ops).violations.map((v) => v.requirement);

describe("a conforming history", () => {
  test("create, continue on either endpoint, list: no violation", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.create({ message: "m2", continues: A, endpoint: "stream" });
    h.list(A, ["m1", "m2"]);
    h.list(A, ["m1", "m2"], { query: { page: 2, pageSize: 1 } });
    h.list(A, ["m1", "m2"], { query: { pageSize: 3 } });
    expect(failuresOf(h)).toEqual([]);
  });

  test("three messages per exchange, newest first, are the service's choice", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.create({ message: "m2", continues: A });
    const items = (ms: string[]) => ms;
    h.list(A, items(["m2", "m1"]), { perExchange: 3 });
    h.create({ message: "m3", continues: A });
    h.list(A, ["m3", "m2", "m1"], { perExchange: 3 });
    expect(failuresOf(h)).toEqual([]);
  });

  test("two overlapping continuations may take effect in either order", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.create({ message: "m2", continues: A, at: { start: 100, end: 130 } });
    h.create({ message: "m3", continues: A, endpoint: "stream", at: { start: 105, end: 120 } });
    h.list(A, ["m1", "m3", "m2"], { at: { start: 200, end: 205 } });
    expect(failuresOf(h)).toEqual([]);
  });

  test("an exchange with an unknown outcome may be listed or not", () => {
    for (const listed of [["m1"], ["m1", "m2"]]) {
      const h = new History();
      h.create({ message: "m1" });
      h.create({ message: "m2", continues: A, answer: { unknown: true } });
      h.list(A, listed);
      expect(failuresOf(h)).toEqual([]);
    }
  });

  test("a replay after later turns returns the first result and changes nothing", () => {
    const h = new History();
    h.create({ message: "m1", key: "k1" });
    h.create({ message: "m2", continues: A });
    h.create({ message: "m1", key: "k1", endpoint: "stream" });
    h.list(A, ["m1", "m2"]);
    expect(failuresOf(h)).toEqual([]);
  });

  test("keys scoped per endpoint are a service's choice: the other endpoint runs the key afresh, at once or later", () => {
    const h = new History();
    h.create({ message: "m1", key: "k1" });
    h.create({
      message: "m1",
      key: "k1",
      endpoint: "stream",
      answer: { conversationId: B, text: "answer to m1", citations: "[]" },
    });
    h.create({ message: "m2", key: "k", continues: A, at: { start: 100, end: 130 } });
    h.create({ message: "m2", key: "k", continues: A, endpoint: "stream", at: { start: 105, end: 120 } });
    h.list(A, ["m1", "m2", "m2"], { at: { start: 200, end: 205 } });
    h.create({ message: "m2", key: "k", continues: A, endpoint: "stream", at: { start: 210, end: 215 } });
    h.list(A, ["m1", "m2", "m2"], { at: { start: 220, end: 225 } });
    expect(failuresOf(h)).toEqual([]);
  });

  test("a delete overlapping an exchange may come after it; the conversation stays gone", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.create({ message: "m2", continues: A, endpoint: "stream", at: { start: 100, end: 150 } });
    h.delete(A, { at: { start: 110, end: 115 } });
    h.list(A, [], { refused: 404, at: { start: 200, end: 201 } });
    h.delete(A, { status: 404, at: { start: 210, end: 211 } });
    expect(failuresOf(h)).toEqual([]);
  });
});

describe("interaction bugs, each by its own requirement", () => {
  test("a lost continuation under overlap fails RESP-2", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.create({ message: "m2", continues: A, at: { start: 100, end: 130 } });
    h.create({ message: "m3", continues: A, at: { start: 105, end: 120 } });
    h.list(A, ["m1", "m3"], { at: { start: 200, end: 205 } });
    expect(failuresOf(h)).toEqual(["RESP-2"]);
  });

  test("a lost streamed continuation fails SSE-8", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.create({ message: "m2", continues: A, endpoint: "stream", at: { start: 100, end: 130 } });
    h.create({ message: "m3", continues: A, at: { start: 105, end: 120 } });
    h.list(A, ["m1", "m3"], { at: { start: 200, end: 205 } });
    expect(failuresOf(h)).toEqual(["SSE-8"]);
  });

  test("a dropped stream listed as its question alone fails SSE-8, naming that exchange, not LIST-5", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.list(A, ["m1"]);
    h.create({ message: "m2", continues: A });
    h.list(A, ["m1", "m2"]);
    const dropped = h.create({ message: "m3", continues: A, endpoint: "stream", answer: { unknown: true } });
    // The service stored the question and lost the answer: the last item goes.
    h.list(A, ["m1", "m2", "m3"], { lost: [5] });
    const found = judgeHistory(h.ops).violations;
    expect(found.map((v) => v.requirement)).toEqual(["SSE-8"]);
    expect(described(found[0]).message).toMatch(new RegExp(`the exchange of #${dropped} is stored in part`));
  });

  test("a streamed exchange that took effect, listed as its question alone between two whole ones, fails SSE-8 naming it, not LIST-5", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.list(A, ["m1"]);
    const streamed = h.create({ message: "m2", continues: A, endpoint: "stream" });
    h.create({ message: "m3", continues: A });
    // The service stored the stream's question and lost its answer: the fourth item goes.
    h.list(A, ["m1", "m2", "m3"], { lost: [3] });
    const found = judgeHistory(h.ops).violations;
    expect(found.map((v) => v.requirement)).toEqual(["SSE-8"]);
    expect(described(found[0]).message).toMatch(new RegExp(`the exchange of #${streamed} is stored in part`));
  });

  test("a dropped stream listed as its question alone, where another counting would explain that listing, fails SSE-8 once a later listing belies that counting", () => {
    const h = new History();
    h.create({ message: "m1", endpoint: "stream" });
    h.list(A, ["m1"]);
    const dropped = h.create({ message: "m1", continues: A, endpoint: "stream", answer: { unknown: true } });
    // The question alone: 3 messages, as if this service listed one message before each conversation's exchanges and one per exchange.
    h.list(A, ["m1", "m1"], { lost: [3] });
    h.create({
      message: "m2",
      endpoint: "stream",
      answer: { conversationId: B, text: "answer to m2", citations: "[]" },
    });
    h.create({ message: "m3", continues: B, endpoint: "stream" });
    h.list(B, ["m2", "m3"]);
    const found = judgeHistory(h.ops).violations;
    expect(found.map((v) => v.requirement)).toEqual(["SSE-8"]);
    expect(described(found[0]).message).toMatch(new RegExp(`the exchange of #${dropped} is stored in part`));
  });

  test("one key on both endpoints at once, run twice, fails IDEM-5 once the service has shown its keys shared", () => {
    const h = new History();
    h.create({ message: "m1", key: "k1" });
    // The stream replays the plain key: this service shares keys between its endpoints.
    h.create({ message: "m1", key: "k1", endpoint: "stream" });
    h.create({ message: "m2", key: "k", continues: A, at: { start: 100, end: 130 } });
    h.create({ message: "m2", key: "k", continues: A, endpoint: "stream", at: { start: 105, end: 120 } });
    h.list(A, ["m1", "m2", "m2"], { at: { start: 200, end: 205 } });
    expect(failuresOf(h)).toEqual(["IDEM-5"]);
  });

  test("one key on both endpoints at once, run twice, fails IDEM-5 when a later replay shows the keys shared", () => {
    const h = new History();
    h.create({ message: "m1", key: "k1" });
    h.create({ message: "m2", key: "k", continues: A, at: { start: 100, end: 130 } });
    h.create({ message: "m2", key: "k", continues: A, endpoint: "stream", at: { start: 105, end: 120 } });
    h.list(A, ["m1", "m2", "m2"], { at: { start: 200, end: 205 } });
    h.create({ message: "m1", key: "k1", endpoint: "stream", at: { start: 300, end: 305 } });
    h.list(A, ["m1", "m2", "m2"], { at: { start: 400, end: 405 } });
    expect(failuresOf(h)).toEqual(["IDEM-5"]);
  });

  test("a delete undone by an exchange in flight fails DEL-1", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.create({ message: "m2", continues: A, endpoint: "stream", at: { start: 100, end: 150 } });
    h.delete(A, { at: { start: 110, end: 115 } });
    h.list(A, ["m1", "m2"], { at: { start: 200, end: 201 } });
    expect(failuresOf(h)).toEqual(["DEL-1"]);
  });

  test("a replay answered with a later turn fails IDEM-1 (IDEM-4 on the stream)", () => {
    for (const [endpoint, requirement] of [
      ["plain", "IDEM-1"],
      ["stream", "IDEM-4"],
    ] as const) {
      const h = new History();
      h.create({ message: "m1", key: "k1" });
      h.create({ message: "m2", continues: A });
      h.create({
        message: "m1",
        key: "k1",
        endpoint,
        answer: { conversationId: A, text: "answer to m2", citations: "[]" },
      });
      expect(failuresOf(h)).toEqual([requirement]);
    }
  });

  test("a replay that appends again fails IDEM-2", () => {
    const h = new History();
    h.create({ message: "m1", key: "k1" });
    h.list(A, ["m1"]);
    h.create({ message: "m1", key: "k1" });
    h.list(A, ["m1", "m1"]);
    expect(failuresOf(h)).toEqual(["IDEM-2"]);
  });

  test("page without page_size served with another default fails LIST-2", () => {
    const h = new History();
    h.create({ message: "m1" });
    const index = h.list(A, ["m1"], { query: { page: 1 } });
    const op = h.ops[index - 1];
    if (op?.kind === "list" && op.outcome.type === "ok")
      h.ops[index - 1] = { ...op, outcome: { ...op.outcome, value: { ...op.outcome.value, pageSize: 20 } } };
    expect(failuresOf(h)).toEqual(["LIST-2"]);
  });

  test("another key's stream appending to the conversation fails SCOPE-4", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.create({ message: "m2", who: "otherKey", continues: A, endpoint: "stream" });
    expect(failuresOf(h)).toEqual(["SCOPE-4"]);
  });

  test("another agent listing the conversation fails SCOPE-1; another key deleting it fails SCOPE-3", () => {
    const listed = new History();
    listed.create({ message: "m1" });
    listed.list(A, ["m1"], { who: "otherAgent" });
    expect(failuresOf(listed)).toEqual(["SCOPE-1"]);
    const deleted = new History();
    deleted.create({ message: "m1" });
    deleted.delete(A, { who: "otherKey" });
    expect(failuresOf(deleted)).toEqual(["SCOPE-3"]);
  });

  test("a frozen updated_at after a streamed exchange is a LIST-8 warning", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.list(A, ["m1"], { updatedAt: "2026-11-25T10:00:00.100Z" });
    h.create({ message: "m2", continues: A, endpoint: "stream" });
    h.list(A, ["m1", "m2"], { updatedAt: "2026-11-25T10:00:00.100Z" });
    const { violations, state } = judgeHistory(h.ops);
    expect(violations.map((v) => v.requirement)).toEqual(["LIST-8"]);
    expect(state.search.failed).toBeUndefined();
  });

  test("an updated_at in whole seconds need not advance with an exchange sent within a second of the listing that showed it", () => {
    // A service that stamps what it stores after answering (a lagging read model) stamps the first
    // exchange up to that listing, not by the exchange's answer: more than a second after the
    // answer, the next stamp may still fall in the same second.
    const h = new History();
    h.create({ message: "m1", at: { start: 0, end: 100 } });
    h.list(A, ["m1"], { updatedAt: "2026-11-25T10:00:05Z", at: { start: 1150, end: 1160 } });
    h.create({ message: "m2", continues: A, endpoint: "stream", at: { start: 1300, end: 1400 } });
    h.list(A, ["m1", "m2"], { updatedAt: "2026-11-25T10:00:05Z", at: { start: 1500, end: 1510 } });
    expect(judgeHistory(h.ops).violations).toEqual([]);
    h.create({ message: "m3", continues: A, endpoint: "stream", at: { start: 2600, end: 2700 } });
    h.list(A, ["m1", "m2", "m3"], { updatedAt: "2026-11-25T10:00:05Z", at: { start: 2800, end: 2810 } });
    expect(judgeHistory(h.ops).violations.map((v) => v.requirement)).toEqual(["LIST-8"]);
  });

  test("a replay that brings a deleted conversation back fails DEL-1 (a MUST), naming the replay as the cause", () => {
    const h = new History();
    h.create({ message: "m1", key: "k1" });
    h.delete(A);
    h.create({ message: "m1", key: "k1" });
    h.list(A, ["m1"]);
    const { violations } = judgeHistory(h.ops);
    expect(violations.map((v) => v.requirement)).toEqual(["DEL-1"]);
    expect(described(violations[0]).message).toContain("replayed the key of #1");
  });

  test("a request without a key or with an unknown key answered 2xx fails AUTH-1; refused, it changes nothing", () => {
    const refused = new History();
    refused.create({ message: "m1" });
    refused.create({ message: "m2", continues: A, who: "noKey", answer: { refused: 401 } });
    refused.list(A, ["m1"], { who: "unknownKey", refused: 401 });
    refused.list(A, ["m1"]);
    expect(failuresOf(refused)).toEqual([]);
    const listed = new History();
    listed.create({ message: "m1" });
    listed.list(A, ["m1"], { who: "unknownKey" });
    expect(failuresOf(listed)).toEqual(["AUTH-1"]);
    const stored = new History();
    stored.create({ message: "m1" });
    stored.create({ message: "m2", continues: A, who: "noKey", answer: { refused: 401 } });
    stored.list(A, ["m1", "m2"]);
    expect(failuresOf(stored)).toEqual(["AUTH-1"]);
  });

  test("an exchange answered 500 shows within --settle-ms of its answer or never: the worlds where it may still arrive end there", () => {
    const history = (secondListing: string[]) => {
      const h = new History();
      h.create({ message: "m1" });
      h.create({ message: "m2", continues: A, answer: { unknown: true }, at: { start: 100, end: 110 } });
      h.list(A, ["m1"], { at: { start: 120, end: 125 }, settleMs: 1_000 });
      h.list(A, ["m1"], { at: { start: 2_000, end: 2_005 }, settleMs: 1_000 });
      h.list(A, secondListing, { at: { start: 3_000, end: 3_005 }, settleMs: 1_000 });
      return h;
    };
    const settled = judgeHistory(history(["m1"]).ops.slice(0, 4)).state;
    expect(settled.search.failed).toBeUndefined();
    expect(settled.known.worlds).toHaveLength(1);
    expect(failuresOf(history(["m1"]))).toEqual([]);
    expect(failuresOf(history(["m1", "m2"]))).not.toEqual([]);
    // Within the window it may still arrive.
    const soon = new History();
    soon.create({ message: "m1" });
    soon.create({ message: "m2", continues: A, answer: { unknown: true }, at: { start: 100, end: 110 } });
    soon.list(A, ["m1"], { at: { start: 120, end: 125 }, settleMs: 1_000 });
    soon.list(A, ["m1", "m2"], { at: { start: 600, end: 605 }, settleMs: 1_000 });
    expect(failuresOf(soon)).toEqual([]);
  });

  test("a retry of a key whose first request's outcome was unknown takes effect once; twice fails IDEM-4 (a replay) or IDEM-5 (sent while the first was unanswered)", () => {
    const once = new History();
    once.create({ message: "m1" });
    once.create({ message: "m2", continues: A, key: "k2", endpoint: "stream", answer: { unknown: true } });
    once.create({ message: "m2", continues: A, key: "k2", endpoint: "stream" });
    once.list(A, ["m1", "m2"]);
    expect(failuresOf(once)).toEqual([]);
    const twice = new History();
    twice.create({ message: "m1" });
    twice.create({ message: "m2", continues: A, key: "k2", endpoint: "stream", answer: { unknown: true } });
    twice.create({ message: "m2", continues: A, key: "k2", endpoint: "stream" });
    twice.list(A, ["m1", "m2", "m2"]);
    expect(failuresOf(twice)).toEqual(["IDEM-4"]);
    const raced = new History();
    raced.create({ message: "m1" });
    raced.create({
      message: "m2",
      continues: A,
      key: "k2",
      endpoint: "stream",
      answer: { unknown: true },
      at: { start: 100, end: 150 },
    });
    raced.create({ message: "m2", continues: A, key: "k2", endpoint: "stream", at: { start: 120, end: 140 } });
    raced.list(A, ["m1", "m2", "m2"], { at: { start: 160, end: 165 } });
    expect(judgeHistory(raced.ops).state.search.failed?.requirement).toBe("IDEM-5");
  });

  test("an exchange of unknown outcome may show up late, after exchanges sent after it; shown twice it fails", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.create({ message: "m2", continues: A, key: "k2", endpoint: "stream", answer: { unknown: true } });
    h.list(A, ["m1"]);
    h.create({ message: "m3", continues: A });
    // The service stored the dropped stream's exchange after the client left, after m3.
    h.list(A, ["m1", "m3", "m2"]);
    expect(failuresOf(h)).toEqual([]);
    h.list(A, ["m1", "m3", "m2", "m2"]);
    expect(judgeHistory(h.ops).state.search.failed?.requirement).toBe("LIST-5");
  });

  test("a late exchange hidden by a lagging listing may stand before exchanges sent after it, never before one answered before it was sent", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.create({ message: "m2", continues: A, key: "k2", endpoint: "stream", answer: { unknown: true } });
    // The listing lags behind the service's writes: m2 was stored, but not shown yet.
    h.list(A, ["m1"]);
    h.create({ message: "m3", continues: A });
    h.list(A, ["m1", "m2", "m3"]);
    expect(failuresOf(h)).toEqual([]);
    const early = new History();
    early.create({ message: "m1" });
    early.create({ message: "m2", continues: A, key: "k2", endpoint: "stream", answer: { unknown: true } });
    early.list(A, ["m1"]);
    early.create({ message: "m3", continues: A });
    early.list(A, ["m2", "m1", "m3"]);
    expect(failuresOf(early)).toEqual(["LIST-5"]);
  });

  test("a retry refused 409 while a dropped stream of its key still ran leaves that stream free to show up late", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.create({ message: "m2", continues: A, key: "k2", endpoint: "stream", answer: { unknown: true } });
    h.create({ message: "m2", continues: A, key: "k2", answer: { refused: 409 } });
    h.list(A, ["m1"]);
    h.create({ message: "m3", continues: A });
    h.list(A, ["m1", "m2", "m3"]);
    expect(failuresOf(h)).toEqual([]);
  });

  test("a key whose first request's outcome is unknown may be refused 409 with another payload, even with nothing else running", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.create({ message: "m2", continues: A, key: "k2", endpoint: "stream", answer: { unknown: true } });
    // Not listed yet: the service may store it after the client left.
    h.list(A, ["m1"]);
    h.ops.push({
      ...(h.ops[1] as CreateOp),
      index: 4,
      start: 100,
      end: 105,
      endpoint: "plain",
      message: "m3",
      payload: '{"m":3}',
      exclusive: true,
      outcome: { type: "refused", status: 409, code: "idempotency_key_reused" },
    });
    expect(failuresOf(h)).toEqual([]);
  });

  test("a key whose dropped stream a lagging listing never showed may be replayed later, even after its conversation's delete", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.create({ message: "m2", continues: A, key: "k2", endpoint: "stream", answer: { unknown: true } });
    h.create({ message: "m2", continues: A, key: "k2", endpoint: "stream", answer: { refused: 409 } });
    h.list(A, ["m1"]);
    h.delete(A);
    h.create({ message: "m2", continues: A, key: "k2" });
    expect(failuresOf(h)).toEqual([]);
    // A fresh key on the deleted conversation is still not allowed.
    h.create({ message: "m3", continues: A, key: "k3" });
    expect(failuresOf(h)).toEqual(["DEL-3"]);
  });

  test("a listing without one of two exchanges of the same text blames the one no listing counted yet", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.create({ message: "m2", continues: A });
    h.create({ message: "m3", continues: A });
    h.list(A, ["m1", "m2", "m3"]);
    h.create({ message: "m1", continues: A, endpoint: "stream" });
    h.create({ message: "m4", continues: A });
    h.list(A, ["m1", "m2", "m3", "m4"]);
    expect(failuresOf(h)).toEqual(["SSE-8"]);
  });

  test("a fresh key answered 409 with nothing running at the same time fails in the property's own history, not in shared traffic", () => {
    const own = new History();
    own.create({ message: "m1" });
    own.ops.push({
      ...(own.ops[0] as CreateOp),
      index: 2,
      start: 100,
      end: 105,
      key: "k-2",
      message: "m2",
      conversationId: A,
      payload: '{"m":2}',
      exclusive: true,
      outcome: { type: "refused", status: 409, code: "conflict" },
    });
    expect(failuresOf(own)).toEqual(["RESP-2"]);
    const shared = new History();
    shared.create({ message: "m1" });
    shared.ops.push({
      ...(shared.ops[0] as CreateOp),
      index: 2,
      start: 100,
      end: 105,
      key: "k-2",
      message: "m2",
      conversationId: A,
      payload: '{"m":2}',
      outcome: { type: "refused", status: 409, code: "conflict" },
    });
    expect(failuresOf(shared)).toEqual([]);
  });

  test("messages are one when their text is the same once composed and trimmed (a service may store either form)", () => {
    const h = new History();
    h.create({ message: "  caf\u0065\u0301 " });
    h.list(A, ["café"]);
    expect(failuresOf(h)).toEqual([]);
    const mangled = new History();
    mangled.create({ message: "tag \u{1F600}" });
    mangled.create({ message: "tag two", continues: A });
    mangled.list(A, ["tag ?", "tag two"]);
    expect(failuresOf(mangled)).toEqual(["RESP-2"]);
  });

  test("a shape the spec leaves open binds the service to its first answer, on either endpoint", () => {
    const consistent = new History();
    consistent.create({ message: "m1" });
    consistent.ops.push({
      ...(consistent.ops[0] as CreateOp),
      index: 2,
      start: 100,
      end: 105,
      key: "k-open-1",
      message: "m2",
      conversationId: A,
      payload: "{}",
      openShape: "metadata:nested",
      outcome: { type: "refused", status: 400, code: undefined },
    });
    consistent.ops.push({
      ...(consistent.ops[0] as CreateOp),
      index: 3,
      start: 110,
      end: 115,
      key: "k-open-2",
      message: "m3",
      conversationId: A,
      payload: "{}",
      openShape: "metadata:nested",
      endpoint: "stream",
      outcome: { type: "refused", status: 422, code: undefined },
    });
    expect(failuresOf(consistent)).toEqual([]);
    const split = new History();
    split.create({ message: "m1" });
    split.ops.push({
      ...(split.ops[0] as CreateOp),
      index: 2,
      start: 100,
      end: 105,
      key: "k-open-1",
      message: "m2",
      conversationId: A,
      payload: "{}",
      openShape: "metadata:nested",
      outcome: { type: "ok", status: 200, value: { conversationId: A, text: "a", citations: "[]" } },
    });
    split.ops.push({
      ...(split.ops[0] as CreateOp),
      index: 3,
      start: 110,
      end: 115,
      key: "k-open-2",
      message: "m3",
      conversationId: A,
      payload: "{}",
      openShape: "metadata:nested",
      endpoint: "stream",
      outcome: { type: "refused", status: 422, code: undefined },
    });
    expect(failuresOf(split)).toEqual(["RESP-6"]);
  });

  /** A conversation listed once, then two continuations of it that overlap (#3 sent first, #4 answered first). */
  const twoOverlappingContinuations = () => {
    const h = new History();
    h.create({ message: "m1" });
    h.list(A, ["m1"]);
    h.create({ message: "m2", continues: A, at: { start: 100, end: 130 } });
    h.create({ message: "m3", continues: A, at: { start: 101, end: 120 } });
    return h;
  };

  test("the order in which overlapping operations took effect is known once a later answer decides it", () => {
    const h = twoOverlappingContinuations();
    expect(tookEffectFirst(judgeHistory(h.ops).state, 4, 3)).toBeUndefined();
    h.list(A, ["m1", "m3", "m2"], { at: { start: 140, end: 145 } });
    expect(tookEffectFirst(judgeHistory(h.ops).state, 4, 3)).toBe(true);
    expect(tookEffectFirst(judgeHistory(h.ops).state, 3, 4)).toBe(false);
  });

  test("the order of two exchanges is known though a third overlapping request could have taken any place among them", () => {
    const h = twoOverlappingContinuations();
    h.list(A, [], { who: "otherAgent", refused: 404, at: { start: 102, end: 110 } });
    h.list(A, ["m1", "m3", "m2"], { at: { start: 140, end: 145 } });
    expect(tookEffectFirst(judgeHistory(h.ops).state, 4, 3)).toBe(true);
  });

  test("a loser of a same-key race answered 500 is an IDEM-9 warning", () => {
    const h = new History();
    h.create({ message: "m1", key: "k", at: { start: 100, end: 130 } });
    h.create({ message: "m1", key: "k", answer: { unknown: true }, at: { start: 105, end: 110 } });
    h.list(A, ["m1"], { at: { start: 200, end: 201 } });
    const { violations, state } = judgeHistory(h.ops);
    expect(violations.map((v) => v.requirement)).toEqual(["IDEM-9"]);
    expect(state.search.failed).toBeUndefined();
  });

  test("items out of the order they took effect fail LIST-5", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.create({ message: "m2", continues: A });
    h.list(A, ["m1", "m2"]);
    h.create({ message: "m3", continues: A });
    h.list(A, ["m2", "m1", "m3"]);
    expect(failuresOf(h)).toEqual(["LIST-5"]);
  });

  test("a total that counts another conversation fails", () => {
    const h = new History();
    h.create({ message: "m1" });
    h.create({ message: "n1", answer: { conversationId: B, text: "x", citations: "[]" } });
    h.list(A, ["m1", "n1"]);
    expect(failuresOf(h)).toEqual(["LIST-7"]);
  });

  test("a replay written otherwise (key order, whitespace) refused as another payload fails IDEM-8, not IDEM-1", () => {
    const h = new History();
    h.create({ message: "m1", key: "k1", raw: '{"message":"m1"}' });
    h.create({ message: "m1", key: "k1", raw: '{ "message": "m1" }', answer: { refused: 409 } });
    expect(failuresOf(h)).toEqual(["IDEM-8"]);
  });

  test("a second delete answered other than 404 (or busy) fails DEL-1", () => {
    for (const [status, failures] of [
      [404, []],
      [409, []],
      [400, ["DEL-1"]],
      [204, ["DEL-1"]],
    ] as const) {
      const h = new History();
      h.create({ message: "m1" });
      h.delete(A);
      h.delete(A, { status });
      expect({ status, failures: failuresOf(h) }).toEqual({ status, failures });
    }
  });

  test("of three overlapping continuations one lost: RESP-2, whatever order the listing shows the other two in", () => {
    for (const shown of [
      ["m1", "m2", "m3"],
      ["m1", "m3", "m2"],
    ]) {
      const h = new History();
      h.create({ message: "m1" });
      h.create({ message: "m2", continues: A, at: { start: 100, end: 150 } });
      h.create({ message: "m3", continues: A, at: { start: 101, end: 140 } });
      h.create({ message: "m4", continues: A, at: { start: 102, end: 141 } });
      h.list(A, shown, { at: { start: 200, end: 201 } });
      expect({ shown, failures: failuresOf(h) }).toEqual({ shown, failures: ["RESP-2"] });
    }
  });
});

describe("a violation says what the model expected of this service, beside what it saw", () => {
  test("a page that lacks an exchange names the exchanges it holds, by item, under the counting the total allows", () => {
    const h = new History();
    h.create({ message: "m1", endpoint: "stream" });
    h.create({ message: "m2", continues: A, endpoint: "stream", at: { start: 100, end: 150 } });
    h.create({ message: "m3", continues: A, at: { start: 105, end: 120 } });
    h.create({ message: "m4", continues: A, at: { start: 106, end: 121 } });
    h.list(A, ["m1", "m3", "m4"], { at: { start: 200, end: 205 } });
    const [found] = judgeHistory(h.ops).violations;
    expect(found?.requirement).toBe("SSE-8");
    expect(described(found).message).toBe(
      `#5 listed page 1 (size 50, total 6) of conversation ${A} without the exchange of #2`,
    );
    expect(described(found).message).not.toContain("which that page holds");
    expect(described(found).expected).toBe(
      "page 1 holds the exchanges of #1, #2, #3 and #4 (its items 1–6 of 6, oldest first): " +
        "this service lists 2 messages before the first exchange, then 1 message per exchange (the only counting by which 6 messages hold 4 exchanges)",
    );
  });

  test("a total its exchanges cannot make: the totals this service's counting allows, learned or still open, never one the total meets", () => {
    const unknown = new History();
    unknown.create({ message: "m1" });
    for (const m of ["m2", "m3", "m4", "m5", "m6"]) unknown.create({ message: m, continues: A });
    unknown.list(A, ["m1", "m2", "m3", "m4", "m5", "m6"], { query: { pageSize: 3 }, total: 10 });
    const [open] = judgeHistory(unknown.ops).violations;
    expect(described(open).message).toContain("with total 10");
    expect(described(open).expected).toBe(
      "6–8, 12–14, 18–20, … messages for its 6 exchange(s) (#1, #2, #3, #4, #5 and #6): " +
        "the same number of messages for each exchange, after at most 2 before the first (this service has not yet shown how many)",
    );

    const learned = new History();
    learned.create({ message: "m1" });
    learned.create({ message: "m2", continues: A });
    learned.create({ message: "m3", continues: A });
    // 6 messages for 3 exchanges: only 2 per exchange, none before, makes that.
    learned.list(A, ["m1", "m2", "m3"]);
    for (const m of ["m5", "m6", "m7"]) learned.create({ message: m, continues: A });
    learned.list(A, ["m1", "m2", "m3", "m5", "m6", "m7"], { query: { pageSize: 3 }, total: 10 });
    const [shown] = judgeHistory(learned.ops).violations;
    expect(described(shown).message).toContain("with total 10");
    expect(described(shown).expected).toBe(
      "12 messages for its 6 exchange(s) (#1, #2, #3, #5, #6 and #7): this service lists 2 messages per exchange",
    );
  });

  test("a violation names operations as data: numbered afresh, it reads with the new numbers, as if judged so", () => {
    const h = new History();
    h.create({ message: "m1", endpoint: "stream" });
    h.create({ message: "m2", continues: A, endpoint: "stream", at: { start: 100, end: 150 } });
    h.create({ message: "m3", continues: A, at: { start: 105, end: 120 } });
    h.create({ message: "m4", continues: A, at: { start: 106, end: 121 } });
    h.list(A, ["m1", "m3", "m4"], { at: { start: 200, end: 205 } });
    const [found] = judgeHistory(h.ops).violations;
    const [shifted] = judgeHistory(h.ops.map((op) => ({ ...op, index: op.index + 10 }))).violations;
    if (found === undefined || shifted === undefined) throw new Error("the history must fail");
    const numbers = new Map(h.ops.map((op) => [op.index, op.index + 10]));
    expect(describeViolation(renumberViolation(found, numbers))).toEqual(describeViolation(shifted));
    expect(described(shifted).message).toBe(
      `#15 listed page 1 (size 50, total 6) of conversation ${A} without the exchange of #12`,
    );
    expect(renumberViolation(found, numbers).lost).toBe(12);
  });
});
