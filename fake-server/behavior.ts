/**
 * The fake's choices in the spec's gaps, gathered in one plain object so that a variant
 * (another legal choice) or a mutant (one requirement deliberately broken) can later be
 * expressed as a different object instead of a fork of the code. Each field is read in
 * exactly one place, named beside it.
 */
export interface Behavior {
  /** Success statuses per operation; read only by `successStatus` (http/respond.ts). */
  readonly successStatus: {
    readonly create: number;
    readonly stream: number;
    readonly list: number;
    readonly delete: number;
  };
  /** Listing page sizes; read only by `parsePagination` (conversations/pagination.ts). */
  readonly pageSize: { readonly default: number; readonly max: number };
  /** Line ending of every SSE line; read only by `writeEvent` (http/sse.ts). */
  readonly sseLineEnding: string;
  /** How many deltas an answer is split into; read only by `splitIntoDeltas` (answers/split.ts). */
  readonly deltaCount: { readonly min: number; readonly max: number };
}

export type Operation = keyof Behavior["successStatus"];

export const DEFAULT_BEHAVIOR: Behavior = Object.freeze({
  successStatus: Object.freeze({ create: 200, stream: 200, list: 200, delete: 204 }),
  pageSize: Object.freeze({ default: 50, max: 100 }),
  sseLineEnding: "\n",
  deltaCount: Object.freeze({ min: 3, max: 8 }),
});
