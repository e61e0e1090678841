/**
 * Client rule CLIENT-6, judged as a create arrives: the body sent as `application/json`, by the
 * same media-type test the fake's body reader applies.
 */
import { isJsonMediaType } from "../../http/read-body.ts";
import type { ClientRule } from "../rule.ts";

const MAX_SHOWN = 60;

/** CLIENT-6: every create, plain or streamed, carries `Content-Type: application/json`. */
export const jsonContentType: ClientRule = {
  requirement: "CLIENT-6",
  title: "create without Content-Type: application/json",
  stage: "arrival",
  judge({ request }) {
    if (request.operation === undefined) return undefined;
    const contentType = request.headers.contentType;
    if (isJsonMediaType(contentType)) return undefined;
    const sent =
      contentType === undefined ? "no Content-Type" : `Content-Type ${JSON.stringify(contentType.slice(0, MAX_SHOWN))}`;
    return {
      message: `the ${request.operation} request has ${sent}; send the JSON body with Content-Type: application/json`,
      requests: [request],
    };
  },
};
