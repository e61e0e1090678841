/**
 * Listing reads that allow for a service persisting an exchange a moment after answering it
 * (suite/checks/runtime/settling.ts): wait until the listing shows what a finished exchange must
 * have added, or re-read after a quiet window before concluding that nothing changed.
 */
import { SpecMessagePage } from "../../../schemas/index.ts";
import { expect2xx, expectJson } from "../../judgements/expect.ts";
import { quietWindow, settle } from "../runtime/settling.ts";
import type { HttpResult, Identity } from "../../http/types.ts";
import type { Target } from "../runtime/types.ts";

export interface SettledPage {
  page: SpecMessagePage;
  http: HttpResult;
  /** Reads beyond the first before the listing showed it: 0 means read-your-writes held. */
  extraReads: number;
  /** Whether the listing showed the exchange at all within the window. */
  settled: boolean;
}

/**
 * The listing once its `total` exceeds `before` (a finished exchange adds at least one
 * message; a new conversation may not be listable yet). Past --settle-ms the last answer is
 * judged as it is, and the failure names the flag.
 */
export async function listingGrownPast(
  target: Target,
  conversationId: string,
  before: number,
  context: string,
  as: Identity = target.primary,
  settleMs: number = target.settleMs,
): Promise<SettledPage> {
  const settled = await settle(
    () => target.client.list(conversationId, { as }),
    (http) => http.status >= 200 && http.status < 300 && totalIn(http) > before,
    settleMs,
  );
  const http = settled.value;
  const why = settled.ready
    ? context
    : `${context} (waited --settle-ms ${target.settleMs} ms for the exchange to show)`;
  expect2xx(http, why);
  return { page: expectJson(SpecMessagePage, http, why), http, extraReads: settled.extraReads, settled: settled.ready };
}

function totalIn(http: HttpResult): number {
  const parsed = SpecMessagePage.safeParse(http.json);
  return parsed.success ? parsed.data.total : -1;
}

/** Waits out the run's observed lag, so that "nothing changed" is not read too early. */
export function afterQuietWindow(target: Target): Promise<void> {
  return quietWindow(target.settleMs);
}
