/**
 * Which recorded client violations a reader asks for (`GET /__fake/client-violations`,
 * `clientViolations()`): one requirement, and one API key in full or every key starting with the
 * redacted prefix a violation shows.
 */
import type { KeyBucket } from "./key-buckets.ts";

/** Which violations to read. */
export interface ClientViolationFilter {
  /**
   * An API key in full (matches that key only), or a prefix ending in "…" or "..." such as
   * the redacted "sk-fak…" that violations show (matches every key starting with it).
   */
  key?: string;
  /** One requirement, e.g. "CLIENT-4". */
  requirement?: string;
}

const ELLIPSIS = /(?:…|\.\.\.)$/;

export function bucketMatches(bucket: KeyBucket, key: string | undefined): boolean {
  if (key === undefined) return true;
  if (bucket.token === undefined) return false;
  if (ELLIPSIS.test(key)) return bucket.token.startsWith(key.replace(ELLIPSIS, ""));
  return bucket.token === key;
}
