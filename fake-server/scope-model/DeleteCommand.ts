import type { AsyncCommand } from "fast-check";
import { expect } from "vitest";
import { deleteConversation } from "../test-support/client.ts";
import { expectError } from "../test-support/expect.ts";
import { label, pickTarget, reaches, type Identity, type Real, type ScopeModel } from "./model.ts";

/** Deletes a conversation: only its own scope can; for anyone else it does not exist. */
export class DeleteCommand implements AsyncCommand<ScopeModel, Real> {
  constructor(
    readonly who: Identity,
    readonly targetIndex: number,
    readonly unknownId: string,
  ) {}

  check(): boolean {
    return true;
  }

  async run(model: ScopeModel, real: Real): Promise<void> {
    const target = pickTarget(model, this.targetIndex, this.unknownId);
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

  toString(): string {
    return `delete(${label(this.who)}, #${this.targetIndex})`;
  }
}
