/** A delete, stepped in one world. */
import type { DeleteOp } from "./operation.ts";
import { violation, words } from "./violation.ts";
import { conversationKey, withConversation, type World } from "./world.ts";
import { isBusy, type Step } from "./step.ts";
import { scopeRequirement } from "./requirements.ts";

export function stepDelete(world: World, op: DeleteOp): Step {
  const conversation = world.conversations.get(conversationKey(op.conversationId));
  if (conversation === undefined) return { worlds: [world] };
  const outcome = op.outcome;
  const first = conversation.exchanges[0]?.op ?? op.index;

  if (conversation.owner !== op.who) {
    if (outcome.type === "ok") {
      return {
        violation: violation(
          scopeRequirement(op.who, "delete"),
          words`#${op.index} (${op.who}) deleted conversation ${conversation.id} of ${conversation.owner}: answered ${outcome.status}`,
          [first, op.index],
          words`404 conversation_not_found, and the conversation kept`,
        ),
      };
    }
    if (outcome.type === "refused" && outcome.status !== 404) {
      return {
        violation: violation(
          scopeRequirement(op.who, "delete"),
          words`#${op.index} (${op.who}) tried to delete conversation ${conversation.id} of ${conversation.owner} and was answered ${outcome.status}`,
          [first, op.index],
          words`404 conversation_not_found`,
        ),
      };
    }
    return { worlds: [world] };
  }
  if (conversation.deletedBy !== undefined) {
    if (outcome.type === "ok" || (outcome.type === "refused" && outcome.status !== 404 && !isBusy(outcome.status))) {
      return {
        violation: violation(
          "DEL-1",
          words`#${op.index} deleted conversation ${conversation.id} again, after #${conversation.deletedBy} had deleted it, and was answered ${outcome.status}`,
          [conversation.deletedBy, op.index],
          words`404 conversation_not_found`,
        ),
      };
    }
    return { worlds: [world] };
  }
  const deleted = withConversation(world, { ...conversation, deletedBy: op.index });
  if (outcome.type === "ok") return { worlds: [deleted] };
  if (outcome.type === "refused") {
    if (isBusy(outcome.status)) return { worlds: [world] };
    return {
      violation: violation(
        "DEL-1",
        words`#${op.index} deleted conversation ${conversation.id}, which exists in its scope, and was refused with ${outcome.status}`,
        [first, op.index],
        words`2xx, and the conversation gone`,
      ),
    };
  }
  return { worlds: [world, deleted] };
}
