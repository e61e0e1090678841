import type { AsyncCommand } from "fast-check";
import { expect } from "vitest";
import { listMessages } from "../test-support/client.ts";
import { expectError, expectPage } from "../test-support/expect.ts";
import { label, pickTarget, reaches, type Identity, type Real, type ScopeModel } from "./model.ts";

/** Lists a conversation: its own scope sees all of it and only it; anyone else sees nothing. */
export class ListCommand implements AsyncCommand<ScopeModel, Real> {
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
    const reply = await listMessages(real.url, target.id, { key: this.who.key.token, agent: this.who.agent, query: "page_size=100" });
    if (target.conversation && reaches(this.who, target.conversation)) {
      const page = expectPage(reply);
      expect(page.conversation.id).toBe(target.id);
      expect(page.total).toBe(target.conversation.messages);
    } else {
      expectError(reply, 404, "conversation_not_found");
    }
  }

  toString(): string {
    return `list(${label(this.who)}, #${this.targetIndex})`;
  }
}
