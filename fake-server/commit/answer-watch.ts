/**
 * Mutant only (behavior.broken.answerLostWhenClientLeaves): a stream handler that stores the
 * user message when the exchange starts and the answer after its last event, in code that a
 * generator cancelled by the client's disconnect never reaches (an async generator in a
 * StreamingResponse, a `yield` loop in a view). The key's record is still completed, in a
 * `finally`: replays answer in full, while the listing shows the question without its answer.
 */
import type { ServerResponse } from "node:http";
import type { Behavior } from "../behavior/behavior.ts";
import { clientGoneSignal } from "../http/disconnect.ts";

/**
 * Call when a fresh exchange starts; the returned function tells, once it completes, whether its
 * answer is stored. Undefined in the conforming fake, and for a plain create.
 */
export function answerWatch(
  behavior: Pick<Behavior, "broken">,
  operation: "create" | "stream",
  res: ServerResponse,
): (() => boolean) | undefined {
  if (!behavior.broken.answerLostWhenClientLeaves || operation !== "stream") return undefined;
  const gone = clientGoneSignal(res);
  return () => !gone.aborted;
}
