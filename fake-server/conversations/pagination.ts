import type { Behavior } from "../behavior.ts";
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
function readInteger(query: Readonly<Record<string, unknown>>, name: string, min: number, max: number, fallback: number): number {
  const raw = Object.hasOwn(query, name) ? query[name] : undefined;
  if (raw === undefined) return fallback;
  const range = max === Number.MAX_SAFE_INTEGER ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
  if (typeof raw !== "string") throw invalid(`${name} is given more than once; give it once, as ${range}`);
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= min && value <= max)) throw invalid(`${name} must be ${range}, not ${JSON.stringify(raw)}`);
  return value;
}

export function parsePagination(query: Readonly<Record<string, unknown>>, behavior: Pick<Behavior, "pageSize">): PageRequest {
  return {
    page: readInteger(query, "page", 1, Number.MAX_SAFE_INTEGER, 1),
    pageSize: readInteger(query, "page_size", 1, behavior.pageSize.max, behavior.pageSize.default),
  };
}

export interface Page<T> {
  readonly items: T[];
  readonly total: number;
  readonly hasMore: boolean;
}

/** The one page slicer: O(page size), whatever the length of `all`. */
export function slicePage<T>(all: readonly T[], request: PageRequest): Page<T> {
  const start = (request.page - 1) * request.pageSize;
  const end = start + request.pageSize;
  return { items: all.slice(start, end), total: all.length, hasMore: end < all.length };
}
