/**
 * The single-stream rules, SSE-1 … SSE-7, once: which requirement each judgement holds and
 * which streams can show it. The traffic judge and the interaction property loop over this
 * table, and the active checks take each rule's judgement from it; each decides for itself
 * what to do with a stream cut short.
 */
import { EVENT } from "../../schemas/index.ts";
import type { StreamResult } from "../http/types.ts";
import { isEventStream } from "./expect.ts";
import { ruleOf, type Rule } from "./rules.ts";
import {
  judgeCompletedPayload,
  judgeDeltaPayloads,
  judgeErrorEndsStream,
  judgeEventLines,
  judgeEventOrder,
  judgeEventStreamAnswer,
  judgeReassembly,
} from "./streams.ts";

export interface StreamRule extends Rule<StreamResult> {
  /**
   * What of the stream the rule needs: its headers, the events that arrived (judged even if
   * more never came), its terminal event, or the end of the body after it.
   */
  readonly reads: "headers" | "events" | "terminal" | "end";
}

const hasEvent = (s: StreamResult, name: string) => s.events.some((e) => e.event === name);

/** In the order a single verdict is wanted: the first rule a stream breaks is the one reported. */
export const STREAM_RULES = [
  { id: "SSE-1", reads: "headers", when: () => true, judge: judgeEventStreamAnswer },
  // What follows reads events, which only an event stream has.
  { id: "SSE-2", reads: "events", when: (s) => isEventStream(s.headers), judge: judgeEventLines },
  { id: "SSE-3", reads: "end", when: (s) => isEventStream(s.headers), judge: judgeEventOrder },
  { id: "SSE-4", reads: "events", when: (s) => isEventStream(s.headers), judge: judgeDeltaPayloads },
  {
    id: "SSE-5",
    reads: "terminal",
    when: (s) => isEventStream(s.headers) && hasEvent(s, EVENT.completed),
    judge: judgeCompletedPayload,
  },
  {
    id: "SSE-7",
    reads: "end",
    when: (s) => isEventStream(s.headers) && hasEvent(s, EVENT.completed),
    judge: judgeReassembly,
  },
  {
    id: "SSE-6",
    reads: "end",
    when: (s) => isEventStream(s.headers) && hasEvent(s, EVENT.error),
    judge: judgeErrorEndsStream,
  },
] as const satisfies readonly StreamRule[];

export type StreamRuleId = (typeof STREAM_RULES)[number]["id"];

/** The rule of one requirement (the table has one per id). */
export const streamRule = (id: StreamRuleId): StreamRule => ruleOf<StreamRule>(STREAM_RULES, id);
