/**
 * A missing route and a missing resource: two 404s read alike only when they are the same
 * router's answer, whatever path, id or time each quotes.
 */

import { expect, test } from "vitest";
import { sameNotFound, type RouteAnswer } from "./route-probe.ts";

const LISTING = "/v1/agents/agent-a/conversations/0190a000-0000-7000-8000-00000000000a/messages";
const ROUTELESS = "/v1/agents/agent-a/no-such-route-3f9a2b";
const answer = (path: string, text: string, status = 404): RouteAnswer => ({ status, headers: {}, text, path });

test("FastAPI: a missing conversation's detail differs from the router's", () => {
  expect(
    sameNotFound(answer(LISTING, '{"detail":"Conversation not found"}'), answer(ROUTELESS, '{"detail":"Not Found"}')),
  ).toBe(false);
  expect(sameNotFound(answer(LISTING, '{"detail":"Not Found"}'), answer(ROUTELESS, '{"detail":"Not Found"}'))).toBe(
    true,
  );
});

test("routers that quote the path, an id or the time still read alike", () => {
  expect(sameNotFound(answer(LISTING, `Cannot GET ${LISTING}`), answer(ROUTELESS, `Cannot GET ${ROUTELESS}`))).toBe(
    true,
  );
  const spring = (path: string, at: string) => JSON.stringify({ timestamp: at, status: 404, error: "Not Found", path });
  expect(
    sameNotFound(
      answer(LISTING, spring(LISTING, "2026-11-25T10:00:00.123+00:00")),
      answer(ROUTELESS, spring(ROUTELESS, "2026-11-25T10:00:01.456+00:00")),
    ),
  ).toBe(true);
  expect(sameNotFound(answer(LISTING, ""), answer(ROUTELESS, ""))).toBe(true);
});

test("a different status is a different answer", () => {
  expect(sameNotFound(answer(LISTING, ""), answer(ROUTELESS, "", 405))).toBe(false);
});
