/**
 * A command of the scope property (properties/scope.property.test.ts): continue a conversation,
 * which only its own agent and channel reach; anyone else gets 404.
 */
import { expect } from "vitest";
import { createResponse } from "../client.ts";
import { expectError, expectResult } from "../expect.ts";
import { label, grants, reaches, type Real, type ScopeModel } from "./model.ts";
import { TargetedCommand } from "./targeted-command.ts";

/** Continues a conversation: only its own scope may append to it. */
export class ContinueCommand extends TargetedCommand {
  override async run(model: ScopeModel, real: Real): Promise<void> {
    const target = this.target(model);
    const reply = await createResponse(real.url, {
      key: this.who.key.token,
      agent: this.who.agent,
      body: { message: "continue", conversation_id: target.id },
    });
    if (target.conversation && reaches(this.who, target.conversation)) {
      expect(expectResult(reply).conversation_id).toBe(target.id);
      target.conversation.messages += 2;
    } else {
      expectError(reply, 404, grants(this.who) ? "conversation_not_found" : "not_found");
    }
  }

  override toString(): string {
    return `continue(${label(this.who)}, #${this.targetIndex})`;
  }
}
