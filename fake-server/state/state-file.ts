/**
 * `--state FILE`: every session's conversations, loaded at start when the file exists and
 * written on a clean stop, so a fake keeps its data across restarts. Idempotency records,
 * rules and logs are not kept: they belong to a run of tests, not to the data.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { z } from "zod";
import type { Clock } from "../runtime/clock.ts";
import { ApiError } from "../http/api-error.ts";
import type { ApiKeyGrant } from "../access/keys.ts";
import { OptionsError } from "../options.ts";
import type { SessionRegistry } from "../sessions/registry.ts";
import { sessionName } from "../sessions/session-name.ts";
import { exportConversation, importConversation } from "./conversation-fixture.ts";

const StateFile = z.strictObject({
  version: z.literal(1),
  sessions: z.record(z.string(), z.array(z.unknown())),
});

/** Loads the file into the sessions when it exists; an OptionsError naming the file and the place otherwise. */
export function loadState(
  path: string,
  sessions: SessionRegistry,
  keys: ReadonlyMap<string, ApiKeyGrant>,
  clock: Clock,
): number {
  if (!existsSync(path)) return 0;
  let parsed: z.output<typeof StateFile>;
  try {
    parsed = StateFile.parse(JSON.parse(readFileSync(path, "utf8")));
  } catch (error) {
    const reason =
      error instanceof z.ZodError ? z.prettifyError(error) : error instanceof Error ? error.message : String(error);
    throw new OptionsError(`state file ${path} cannot be read: ${reason}`);
  }
  for (const name of Object.keys(parsed.sessions)) {
    try {
      sessionName(name, "session");
    } catch (error) {
      if (error instanceof ApiError)
        throw new OptionsError(`state file ${path}: ${JSON.stringify(name)} is not a session name: ${error.message}`);
      throw error;
    }
  }
  let loaded = 0;
  for (const [name, conversations] of Object.entries(parsed.sessions)) {
    conversations.forEach((conversation, index) => {
      try {
        const { conversations: store } = sessions.get(sessionName(name, "session")).context;
        importConversation(conversation, store, keys, clock);
        loaded++;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        throw new OptionsError(
          `state file ${path}: session ${JSON.stringify(name)}, conversation ${index}: ${error.message}`,
        );
      }
    });
  }
  return loaded;
}

/** Writes every session's conversations, replacing the file in one rename so a crash never leaves half of it. */
export function saveState(path: string, sessions: SessionRegistry): void {
  const state: z.input<typeof StateFile> = { version: 1, sessions: {} };
  for (const session of sessions.all()) {
    const conversations = [...session.context.conversations.all()].map(exportConversation);
    if (conversations.length > 0) state.sessions[session.name] = conversations;
  }
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state)}\n`);
  renameSync(temporary, path);
}
