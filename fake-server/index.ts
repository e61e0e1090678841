/**
 * The in-memory reference fake of the Conversational Agent Service (see README.md beside
 * this file). `createFakeServer` listens; `createFakeApp` gives the request handler alone.
 */
import { startFakeServer, type FakeServer } from "./server.ts";
import type { FakeServerOptions } from "./options.ts";

export { DEFAULT_KEYS, type FakeServerOptions } from "./options.ts";
export type { FakeServer, SessionViolationFilter } from "./server.ts";
export type { ConversationFixture } from "./state/conversation-fixture.ts";
export type { ClientViolationFilter } from "./client-rules/filter.ts";
export { DEFAULT_CLIENT_RULE_OPTIONS, type ClientRuleOptions } from "./client-rules/options.ts";
export { createFakeApp, type FakeApp } from "./app.ts";

export function createFakeServer(options?: FakeServerOptions): Promise<FakeServer> {
  return startFakeServer(options);
}
