/**
 * A request without a key, or with a key nobody issued, stepped in one world: the service must
 * answer it non-2xx and change nothing (AUTH-1). A continuation it may have let through (an
 * unknown outcome, a refusal that stored anyway) leaves a suspect, should its message show.
 */
import type { Op } from "./operation.ts";
import { violation, words } from "./violation.ts";
import { withSuspect, type World } from "./world.ts";
import type { Step } from "./step.ts";

const describeCaller = (op: Op) => (op.who === "noKey" ? "without a key" : "with a key nobody issued");

export function stepAnonymous(world: World, op: Op): Step {
  const what =
    op.kind === "create"
      ? op.endpoint === "stream"
        ? "streamed a message"
        : "sent a message"
      : op.kind === "list"
        ? "listed a conversation"
        : "deleted a conversation";
  if (op.outcome.type === "ok") {
    return {
      violation: violation(
        "AUTH-1",
        words`#${op.index} ${what} ${describeCaller(op)} and was answered ${op.outcome.status}`,
        [op.index],
        words`a non-2xx status (401), and nothing changed`,
      ),
    };
  }
  if (op.kind === "create" && op.conversationId !== null) {
    return {
      worlds: [
        withSuspect(world, op.conversationId, {
          op: op.index,
          message: op.message,
          requirement: "AUTH-1",
          why: words`#${op.index} ${what} ${describeCaller(op)}`,
        }),
      ],
    };
  }
  return { worlds: [world] };
}
