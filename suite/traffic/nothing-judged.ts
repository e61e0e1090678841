/**
 * Why a traffic run judged no exchange, in one line: a run that judged nothing is never a pass
 * (exit 2), and the user needs to know whether the upstream never answered, the traffic held no
 * operation of the spec, or its bodies were not recorded.
 */

export interface ExchangeCounts {
  /** Every exchange seen. */
  seen: number;
  /** Operations of the spec judged. */
  judged: number;
  /** Operations of the spec left unjudged: a body not recorded or not readable. */
  unread: number;
  /** Exchanges that got no answer (the upstream never answered, the request failed). */
  unanswered: number;
  /**
   * Exchanges cut before they ended (still running at the stop, the client hung up, the upstream
   * broke off): recorded with what had arrived and judged as far as they went.
   */
  incomplete: number;
}

export type TrafficSource = "proxy" | "har";

const OPERATIONS =
  "POST …/v1/agents/{agent}/responses[/stream], GET …/conversations/{id}/messages, DELETE …/conversations/{id}";

export function nothingJudged(counts: ExchangeCounts, source: TrafficSource, firstFailure: string | undefined): string {
  const { seen, unread, unanswered, incomplete } = counts;
  if (seen === 0)
    return source === "proxy"
      ? "nothing was judged: no request reached the proxy"
      : "nothing was judged: the files hold no request";
  if (incomplete > 0 && incomplete + unanswered === seen) {
    return `nothing was judged: ${seen === 1 ? "the one request" : `the ${seen} requests`} ${source === "proxy" ? "that reached the proxy" : "recorded"} got no whole answer (${incomplete} cut before ${incomplete === 1 ? "it" : "they"} ended${source === "proxy" ? ", still running at the stop or hung up on" : ""})`;
  }
  if (unanswered === seen) {
    const why = firstFailure === undefined ? "" : ` (${firstFailure})`;
    return source === "proxy"
      ? `nothing was judged: the upstream never answered; each of the ${seen} request(s) got the proxy's 502 upstream_unreachable${why}`
      : `nothing was judged: none of the ${seen} recorded request(s) has an answer${why}`;
  }
  if (unread > 0)
    return `nothing was judged: the ${unread} request(s) of the spec's operations have a body that was not recorded or could not be read`;
  return `nothing was judged: none of the ${seen} request(s) is an operation of the spec (${OPERATIONS})`;
}
