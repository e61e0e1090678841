/**
 * Client rule CLIENT-4: a stream that started is retried only under its own key. The same message
 * re-sent soon after a failed stream under a new key is taken for a likely duplicate.
 */
import { holdsOtherThan, type ObservedRequest } from "../observed-request.ts";
import type { ClientRule } from "../rule.ts";

function failedStream(request: ObservedRequest): boolean {
  return request.operation === "stream" && (request.streamEnd === "error" || request.streamEnd === "cut");
}

/**
 * CLIENT-4: a started stream is retried only under its own key. The fake cannot see whether
 * a re-send is automatic, so it takes the same message, to the same agent and conversation,
 * under a key never seen before, within `duplicateWindowMs` of a stream that started and then
 * failed or was cut, as an automatic retry: a likely duplicate. Later re-sends, or re-sends
 * while that stream was still running, are separate operations.
 */
export const streamRetryDuplicate: ClientRule = {
  requirement: "CLIENT-4",
  title: "failed stream re-sent under a new Idempotency-Key (likely duplicate)",
  stage: "payload",
  judge({ request, sameOperationKey, failedStreams, options }) {
    const payload = request.payload;
    if (payload === undefined || request.idempotencyKey === undefined) return undefined;
    if (failedStreams.length === 0 || holdsOtherThan(sameOperationKey, request)) return undefined;
    const stream = failedStreams.findLast(
      (other) =>
        other !== request &&
        failedStream(other) &&
        other.agent === request.agent &&
        other.payload?.message === payload.message &&
        other.payload.conversationId === payload.conversationId &&
        other.finishedAt !== undefined &&
        other.finishedAt <= request.at &&
        request.at - other.finishedAt <= options.duplicateWindowMs,
    );
    if (stream === undefined || stream.finishedAt === undefined) return undefined;
    const how = stream.streamEnd === "error" ? "ended with an error event" : "was cut before its terminal event";
    return {
      message:
        `the same message was sent again under a new Idempotency-Key ${request.at - stream.finishedAt} ms after a stream that ${how}; ` +
        "retry a started stream only with its own Idempotency-Key (the service then replays or finishes it), otherwise the message may be duplicated",
      requests: [stream, request],
    };
  },
};
