/**
 * A command of the scope property: delete a conversation, which only its own agent and channel can;
 * for anyone else it does not exist (404).
 */
import { expect } from "vitest";
import { deleteConversation } from "../client.ts";
import { expectError } from "../expect.ts";
import { label, reaches, type Real, type ScopeModel } from "./model.ts";
import { TargetedCommand } from "./targeted-command.ts";

/** Deletes a conversation: only its own scope can; for anyone else it does not exist. */
export class DeleteCommand extends TargetedCommand {
  override async run(model: ScopeModel, real: Real): Promise<void> {
    const target = this.target(model);
    const reply = await deleteConversation(real.url, target.id, { key: this.who.key.token, agent: this.who.agent });
    const conversation = target.conversation;
    if (conversation && reaches(this.who, conversation)) {
      expect(reply.status).toBe(204);
      model.live = model.live.filter((c) => c !== conversation);
      model.deleted.push(conversation.id);
    } else {
      expectError(reply, 404, "conversation_not_found");
    }
  }

  override toString(): string {
    return `delete(${label(this.who)}, #${this.targetIndex})`;
  }
}
