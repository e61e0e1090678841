/**
 * Listing pagination: `page` and `page_size` read strictly from the query (400 `invalid_pagination`
 * otherwise), and the one slicer every listing pages with, with the page rules that variants and
 * mutants change.
 */
import { NOTHING_BROKEN, type Behavior } from "../behavior/behavior.ts";
import { ApiError } from "../http/api-error.ts";

export interface PageRequest {
  readonly page: number;
  readonly pageSize: number;
}

function invalid(message: string): ApiError {
  return new ApiError(400, "invalid_pagination", message);
}

/**
 * `page` and `page_size` from the query: absent means the default; otherwise a plain
 * decimal integer in range, given once. "1.5", "1e2", "-1", "", "abc" and repeats are 400.
 */
function readInteger(
  query: Readonly<Record<string, unknown>>,
  name: string,
  min: number,
  max: number,
  fallback: number,
): number {
  const raw = Object.hasOwn(query, name) ? query[name] : undefined;
  if (raw === undefined) return fallback;
  const range = max === Number.MAX_SAFE_INTEGER ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
  if (typeof raw !== "string") throw invalid(`${name} is given more than once; give it once, as ${range}`);
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= min && value <= max)) throw invalid(`${name} must be ${range}, not ${JSON.stringify(raw)}`);
  return value;
}

export function parsePagination(
  query: Readonly<Record<string, unknown>>,
  behavior: Pick<Behavior, "pageSize" | "oversizePageSize"> & {
    readonly broken?: Pick<
      Behavior["broken"],
      "pageZeroServed" | "pageZeroAsFirst" | "pageAloneDefaultSize" | "pageSizeCap"
    >;
  },
): PageRequest {
  const { max } = behavior.pageSize;
  // The clamp-page-size variant serves any larger page_size as the maximum.
  const clamp = behavior.oversizePageSize === "clamp";
  // A mutant falls back to another default when page comes without page_size.
  const aloneSize = behavior.broken?.pageAloneDefaultSize ?? null;
  const fallbackSize = aloneSize !== null && Object.hasOwn(query, "page") ? aloneSize : behavior.pageSize.default;
  const pageSize = readInteger(query, "page_size", 1, clamp ? Number.MAX_SAFE_INTEGER : max, fallbackSize);
  // Two mutants take page=0: one serves it as is, one silently as page 1.
  const zeroAsFirst = behavior.broken?.pageZeroAsFirst === true;
  const page = readInteger(
    query,
    "page",
    behavior.broken?.pageZeroServed || zeroAsFirst ? 0 : 1,
    Number.MAX_SAFE_INTEGER,
    1,
  );
  // A mutant caps the size one below the maximum, an exclusive bound where the spec's is inclusive.
  const cap = behavior.broken?.pageSizeCap ?? max;
  return {
    page: zeroAsFirst && page === 0 ? 1 : page,
    pageSize: Math.min(pageSize, max, cap),
  };
}

export interface Page<T> {
  readonly items: T[];
  readonly total: number;
  readonly hasMore: boolean;
}

/**
 * The one page slicer: O(page size), whatever the length of `all`. Only the first `length`
 * items exist for it (a lagging listing shows fewer than are stored). Two mutants get it
 * wrong on purpose.
 */
export function slicePage<T>(
  all: readonly T[],
  request: PageRequest,
  broken: Pick<Behavior["broken"], "pageOffsetOffByOne" | "hasMoreAtExactEnd"> = NOTHING_BROKEN,
  length: number = all.length,
): Page<T> {
  const shift = broken.pageOffsetOffByOne && request.page > 1 ? 1 : 0;
  const start = (request.page - 1) * request.pageSize - shift;
  const end = Math.min(start + request.pageSize, length);
  const hasMore = broken.hasMoreAtExactEnd ? start + request.pageSize <= length : end < length;
  return { items: all.slice(start, end), total: length, hasMore };
}
