/**
 * The stream's events: their names, their payloads at spec strength (`type` and the fields each
 * event must carry, anything else allowed) and at the fake's, whose response.created names the
 * conversation.
 */
import { z } from "zod";
import { CompletedResponse, SpecCompletedResponse } from "./resources.ts";
import { Uuid } from "./primitives.ts";

export const EVENT = {
  created: "response.created",
  delta: "response.output_text.delta",
  completed: "response.completed",
  error: "error",
} as const;
export type EventName = (typeof EVENT)[keyof typeof EVENT];
export const EVENT_NAMES: readonly EventName[] = Object.values(EVENT);
export const TERMINAL_EVENTS: readonly EventName[] = [EVENT.completed, EVENT.error];

// Spec strength: each event's `data` is a JSON object whose `type` is the event name.
// The payload of response.created is a gap; unknown fields pass everywhere.

export const SpecCreatedEvent = z.looseObject({ type: z.literal(EVENT.created) });
export const SpecDeltaEvent = z.looseObject({ type: z.literal(EVENT.delta), delta: z.string() });
export const SpecCompletedEvent = z.looseObject({
  type: z.literal(EVENT.completed),
  response: SpecCompletedResponse,
});
export const SpecErrorEvent = z.looseObject({
  type: z.literal(EVENT.error),
  code: z.string(),
  message: z.string(),
});
export const SpecStreamEvent = z.discriminatedUnion("type", [
  SpecCreatedEvent,
  SpecDeltaEvent,
  SpecCompletedEvent,
  SpecErrorEvent,
]);
export type SpecStreamEvent = z.infer<typeof SpecStreamEvent>;

// Fake strength: the fake announces the conversation in response.created.

export const CreatedEvent = z.strictObject({
  type: z.literal(EVENT.created),
  conversation_id: Uuid,
});
export const DeltaEvent = z.strictObject({ type: z.literal(EVENT.delta), delta: z.string() });
export const CompletedEvent = z.strictObject({
  type: z.literal(EVENT.completed),
  response: CompletedResponse,
});
export const ErrorEvent = z.strictObject({
  type: z.literal(EVENT.error),
  code: z.string(),
  message: z.string(),
});
export const StreamEvent = z.discriminatedUnion("type", [CreatedEvent, DeltaEvent, CompletedEvent, ErrorEvent]);
export type StreamEvent = z.infer<typeof StreamEvent>;
export type CreatedEvent = z.infer<typeof CreatedEvent>;
export type DeltaEvent = z.infer<typeof DeltaEvent>;
export type CompletedEvent = z.infer<typeof CompletedEvent>;
export type ErrorEvent = z.infer<typeof ErrorEvent>;
