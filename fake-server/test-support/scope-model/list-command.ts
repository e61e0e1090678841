/**
 * A command of the scope property: list a conversation, all of it for its own agent and channel, a
 * 404 for anyone else.
 */
import { expect } from "vitest";
import { listMessages } from "../client.ts";
import { expectError, expectPage } from "../expect.ts";
import { label, reaches, type Real, type ScopeModel } from "./model.ts";
import { TargetedCommand } from "./targeted-command.ts";

/** Lists a conversation: its own scope sees all of it and only it; anyone else sees nothing. */
export class ListCommand extends TargetedCommand {
  override async run(model: ScopeModel, real: Real): Promise<void> {
    const target = this.target(model);
    const reply = await listMessages(real.url, target.id, {
      key: this.who.key.token,
      agent: this.who.agent,
      query: "page_size=100",
    });
    if (target.conversation && reaches(this.who, target.conversation)) {
      const page = expectPage(reply);
      expect(page.conversation.id).toBe(target.id);
      expect(page.total).toBe(target.conversation.messages);
    } else {
      expectError(reply, 404, "conversation_not_found");
    }
  }

  override toString(): string {
    return `list(${label(this.who)}, #${this.targetIndex})`;
  }
}
