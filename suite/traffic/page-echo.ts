/**
 * LIST-5's echo, per exchange: a listing answered 2xx says the page and page_size it was asked
 * for. The model holds the same rule (suite/model/page.ts), but the traffic judge leaves a page
 * that is wrong by itself to the per-exchange rules, and these judge the echo of a parameter left
 * out (LIST-2) and the page's arithmetic, not the echo of one sent. Parameters out of bounds are
 * LIST-3's, LIST-4's and LIST-10's, and are not judged here.
 */
import { SpecMessagePage } from "../../schemas/index.ts";
import { expectSame } from "../judgements/expect.ts";
import type { HttpResult } from "../http/types.ts";
import { MAX_PAGE_SIZE } from "../model/page.ts";
import type { Judged } from "./service-rules.ts";

/** A page parameter as sent: a whole number from 1 (page_size up to the maximum), else undefined. */
function asked(value: string | null, max: number): number | undefined {
  if (value === null || !/^\d{1,9}$/.test(value)) return undefined;
  const n = Number(value);
  return n >= 1 && n <= max ? n : undefined;
}

export function judgePageEcho({ c, line, record }: Pick<Judged, "c" | "line" | "record">, http: HttpResult): void {
  if (http.status < 200 || http.status >= 300) return;
  const page = asked(c.query.get("page"), Number.MAX_SAFE_INTEGER);
  const pageSize = asked(c.query.get("page_size"), MAX_PAGE_SIZE);
  if (page === undefined && pageSize === undefined) return;
  const listed = SpecMessagePage.safeParse(http.json);
  // A body that is not a listing is LIST-1's.
  if (!listed.success) return;
  record.judge("LIST-5", line, () => {
    if (page !== undefined)
      expectSame(listed.data.page, page, `the echoed page of a listing that asked for page ${page}`, http);
    if (pageSize !== undefined)
      expectSame(
        listed.data.page_size,
        pageSize,
        `the echoed page_size of a listing that asked for page_size ${pageSize}`,
        http,
      );
  });
}
