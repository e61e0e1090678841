/** What stepping one operation in one world gives. */
import type { Stepped } from "./linearize.ts";
import type { KeysTaken } from "./key-forms.ts";
import type { Violation } from "./violation.ts";
import type { World } from "./world.ts";

export interface StepContext {
  /** The operations that overlapped this one in time (#n): either order of them is legal. */
  readonly overlapping: ReadonlySet<number>;
  /** Every message the history sent so far, with the operation (#n) that sent it. */
  readonly messages: ReadonlyMap<string, number>;
  /** What the keys of the creates the service answered 2xx so far show it takes. */
  readonly keysTaken: KeysTaken;
}

/**
 * The worlds the operation may lead to, with SHOULD-level findings that do not rule the world
 * out; or the violation that does.
 */
export type Step = Stepped<World>;

/**
 * "Busy, not now" answers a service may give a write that then took no effect: 409 and 423
 * (Locked: a conversation held while an exchange is generated), and 429.
 */
export const isBusy = (status: number) => status === 409 || status === 423 || status === 429;

/**
 * A verdict that holds only if `earlier` took effect first: when the two overlapped, that is this
 * world's guess at their order, and another world's verdict explains more (linearize.ts ranks it
 * below).
 */
export const afterOverlapping = (found: Violation, earlier: number, context: StepContext): Violation =>
  context.overlapping.has(earlier) ? { ...found, byOrder: true } : found;
