/**
 * The run's journal: the worker that runs the checks appends one JSON line per create, per
 * tracked conversation and per conversation a check deleted; the runner reads it after the last check to count spending and to
 * delete exactly what the run created. Keys are never written: owners are named by role.
 */

import { appendFileSync, readFileSync } from "node:fs";
import { z } from "zod";

/** Which configured key owns a conversation: the primary one, the other one, or neither. */
export const KeyRole = z.enum(["primary", "other", "none", "unknown"]);
export type KeyRole = z.infer<typeof KeyRole>;

export const JournalEntry = z.discriminatedUnion("type", [
  z.object({ type: z.literal("create"), check: z.string() }),
  z.object({
    type: z.literal("track"),
    conversationId: z.string().min(1),
    owner: z.object({ agentId: z.string().min(1), key: KeyRole }),
    check: z.string(),
  }),
  // A conversation a check deleted (2xx): cleanup need not, and a 404 there then means something.
  z.object({ type: z.literal("deleted"), conversationId: z.string().min(1), check: z.string() }),
]);
export type JournalEntry = z.infer<typeof JournalEntry>;

export function appendJournal(path: string, entry: JournalEntry): void {
  appendFileSync(path, `${JSON.stringify(entry)}\n`);
}

interface JournalContents {
  entries: JournalEntry[];
  /** Lines that did not parse: a harness fault worth reporting. */
  malformed: number;
}

export function readJournal(path: string): JournalContents {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { entries: [], malformed: 0 };
    throw error;
  }
  const entries: JournalEntry[] = [];
  let malformed = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const parsed = JournalEntry.safeParse(JSON.parse(line));
      if (parsed.success) entries.push(parsed.data);
      else malformed++;
    } catch {
      malformed++;
    }
  }
  return { entries, malformed };
}
