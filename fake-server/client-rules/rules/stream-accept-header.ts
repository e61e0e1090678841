/**
 * Client rule CLIENT-5, judged as a stream request arrives: `Accept: text/event-stream` with a
 * quality above zero. The fake serves the stream without it all the same.
 */
import type { ClientRule } from "../rule.ts";

/** Whether an Accept header lists text/event-stream with a non-zero quality. */
export function acceptsEventStream(accept: string): boolean {
  return accept.split(",").some((range) => {
    const [type = "", ...params] = range.split(";").map((part) => part.trim().toLowerCase());
    if (type !== "text/event-stream") return false;
    const quality = params.find((param) => /^q\s*=/.test(param));
    return quality === undefined || Number(quality.replace(/^q\s*=\s*/, "")) > 0;
  });
}

/** CLIENT-5: the stream request sends `Accept: text/event-stream`. */
export const streamAcceptHeader: ClientRule = {
  requirement: "CLIENT-5",
  title: "stream request without Accept: text/event-stream",
  stage: "arrival",
  judge({ request, party }) {
    if (request.operation !== "stream") return undefined;
    const accept = request.headers.accept;
    if (accept !== undefined && acceptsEventStream(accept)) return undefined;
    return {
      message: `stream request without Accept: text/event-stream (the spec requires clients to send it${party === "fake" ? "; the fake serves the stream anyway" : ""})`,
      requests: [request],
    };
  },
};
