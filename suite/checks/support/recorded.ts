/**
 * What building a shared conversation records (suite/checks/support/fixtures.ts builds them;
 * the checks and the listing helpers read them): each exchange as the target answered it,
 * and the settled listing after it.
 */
import type { HttpResult, StreamResult } from "../../http/types.ts";
import type { SettledPage } from "./settled.ts";

export interface RecordedExchange {
  kind: "plain" | "stream";
  /** The user message sent (it carries the run id). */
  message: string;
  /** The plain answer, or the stream, as the target sent it. */
  http?: HttpResult;
  stream?: StreamResult;
  /** The conversation the answer names (undefined when it names none). */
  conversationId: string | undefined;
  /** `total` before and after (after: once settled, or the last read). */
  totalBefore: number;
  listingAfter: SettledPage;
  /** 1 + the try-later answers the client waited out before the answer. */
  attempts: number;
}

export interface RecordedConversation {
  conversationId: string;
  exchanges: RecordedExchange[];
  /** Every message, read in pages of 100 after the last exchange, and its total. */
  reference: { items: unknown[]; total: number };
}
