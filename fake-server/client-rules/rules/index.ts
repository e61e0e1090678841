/**
 * The client rules the observer applies, one file each beside this one, listed here once in catalog
 * order.
 */
import type { ClientRule } from "../rule.ts";
import { bearerHeader } from "./bearer-header.ts";
import { idempotencyKeyPresent } from "./idempotency-key-present.ts";
import { idempotencyKeyReuse } from "./idempotency-key-reuse.ts";
import { jsonContentType } from "./json-content-type.ts";
import { createRetryStorm } from "./retry-storm.ts";
import { streamAcceptHeader } from "./stream-accept-header.ts";
import { streamRetryDuplicate } from "./stream-retry-duplicate.ts";

/** Every rule the observer applies, in catalog order; built per observer (the storm rule keeps state). */
export function createRules(): ClientRule[] {
  return [
    bearerHeader,
    idempotencyKeyPresent,
    idempotencyKeyReuse,
    streamRetryDuplicate,
    streamAcceptHeader,
    jsonContentType,
    createRetryStorm(),
  ];
}
