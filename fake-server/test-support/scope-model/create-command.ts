/**
 * A command of the scope property: start a conversation, which then belongs to the caller's agent
 * and channel; an agent the key does not grant gets 404 `not_found`.
 */
import type { AsyncCommand } from "fast-check";
import { expect } from "vitest";
import { createResponse } from "../client.ts";
import { expectError, expectResult } from "../expect.ts";
import { label, grants, type Identity, type Real, type ScopeModel } from "./model.ts";

/** Starts a new conversation: it belongs to the caller's agent and channel. */
export class CreateCommand implements AsyncCommand<ScopeModel, Real> {
  constructor(readonly who: Identity) {}

  check(): boolean {
    return true;
  }

  async run(model: ScopeModel, real: Real): Promise<void> {
    const reply = await createResponse(real.url, { key: this.who.key.token, agent: this.who.agent });
    if (!grants(this.who)) {
      expectError(reply, 404, "not_found");
      return;
    }
    const { conversation_id } = expectResult(reply);
    expect(model.live.some((c) => c.id === conversation_id) || model.deleted.includes(conversation_id)).toBe(false);
    model.live.push({ id: conversation_id, agent: this.who.agent, channel: this.who.key.channel, messages: 2 });
  }

  toString(): string {
    return `create(${label(this.who)})`;
  }
}
