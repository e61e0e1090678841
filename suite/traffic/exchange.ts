/**
 * One HTTP exchange as seen on the wire by the conformance proxy or read from a HAR file: the
 * input of the traffic judge (judge.ts). Both sources produce exactly this shape, so recorded
 * and live traffic are judged by the same code.
 */

/** Arrival of one body chunk of the response, as the proxy saw it (HAR has none). */
export interface ObservedChunk {
  /** Milliseconds since the request started. */
  readonly at: number;
  readonly bytes: number;
}

export interface ObservedExchange {
  /** Order in which exchanges were seen (0, 1, …); the judge's order of events. */
  readonly sequence: number;
  /** When the request started, epoch milliseconds. */
  readonly startedAt: number;
  readonly request: {
    readonly method: string;
    /** The absolute URL as the client asked for it (the proxy's or the recorded one). */
    readonly url: string;
    /** Lower-cased names; repeated headers joined with ", ". */
    readonly headers: Readonly<Record<string, string>>;
    /**
     * The body as text. Undefined on a GET or HEAD; on any other method, undefined when it is not
     * known (a HAR that did not record it, a content coding the proxy cannot decode).
     */
    readonly body: string | undefined;
  };
  /** Undefined when no response head arrived (connection refused, reset, aborted before). */
  readonly response:
    | {
        readonly status: number;
        readonly headers: Readonly<Record<string, string>>;
        /**
         * The whole body as text (SSE included), as far as it arrived; undefined when it is not
         * known (a HAR that did not record it, a content coding the proxy cannot decode).
         */
        readonly body: string | undefined;
        /** False when the connection ended before the body did (cut stream, client aborted). */
        readonly complete: boolean;
        /** Chunk arrival times when they map onto the body (the proxy, uncompressed); undefined otherwise. */
        readonly chunks: readonly ObservedChunk[] | undefined;
      }
    | undefined;
  /** What went wrong at the transport level, if anything ("upstream reset", "client aborted", …). */
  readonly failure: string | undefined;
  /**
   * Set when the exchange was cut before it ended (the proxy stopped, the client hung up, the
   * upstream broke off): what had arrived is recorded, and whether the request took effect is
   * unknown. HAR: the entry's `_incomplete`.
   */
  readonly incomplete?: true;
  readonly durationMs: number;
  /** Milliseconds from the request's start to the response head (time to first byte), when known. */
  readonly waitMs?: number;
}
