/**
 * Client rule CLIENT-1, judged as a request arrives: an Authorization header of the form the fake's
 * key check accepts. A malformed header is never quoted back, as it is often the bare key.
 */
import type { ClientRule } from "../rule.ts";

// The same form the fake's auth check accepts: the scheme in any case, one token.
const BEARER = /^Bearer +[^\s]+ *$/i;

/** CLIENT-1: every /v1 request carries `Authorization: Bearer <API_KEY>`. */
export const bearerHeader: ClientRule = {
  requirement: "CLIENT-1",
  title: "request without a well-formed Authorization: Bearer header",
  stage: "arrival",
  judge({ request }) {
    const header = request.headers.authorization;
    if (header !== undefined && BEARER.test(header)) return undefined;
    // Never quote the header: a malformed one is often the bare key itself.
    const message =
      header === undefined || header === ""
        ? "the request has no Authorization header; send Authorization: Bearer <API_KEY> on every request"
        : `the Authorization header (${header.length} characters, not shown) is not of the form Bearer <API_KEY>; send the key after "Bearer "`;
    return { message, requests: [request] };
  },
};
