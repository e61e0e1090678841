/**
 * A stored outcome read back as the result it answered, for the replay mutants that answer another
 * turn or bring a deleted conversation back.
 */
import { z } from "zod";
import { ResponseResult } from "../../schemas/index.ts";
import { StoredCitation } from "../answers/scripted-citation.ts";
import type { StoredOutcome } from "./store.ts";

/** A stored result: the fake's own shape, except that citations scripted by a rule keep theirs. */
const StoredResult = ResponseResult.extend({ citations: z.array(StoredCitation) });

/** The stored result behind a replay. */
export function storedResult(outcome: StoredOutcome): ResponseResult {
  return StoredResult.parse(JSON.parse(outcome.body));
}
