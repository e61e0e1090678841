import { expect, test } from "vitest";
import { basePathProblem } from "./base-path.ts";
import { OptionsError, resolveOptions } from "../options.ts";
import { call, createResponse, listMessages } from "../test-support/client.ts";
import { expectError, expectPage, expectResult } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";

const AUTH = { authorization: "Bearer sk-fake-a" };

test("base-path: the url carries the prefix, and the whole API is served under it", async () => {
  const fake = await fakeServer({ variants: ["base-path"] });
  expect(fake.url).toBe(`http://127.0.0.1:${fake.port}/api/agents-service`);
  const { conversation_id: id } = expectResult(await createResponse(fake.url));
  expect(expectPage(await listMessages(fake.url, id, { query: "page_size=1" })).items).toHaveLength(1);
});

test("base-path: the API without the prefix is 404 not_found naming it; /__fake is at the root only", async () => {
  const fake = await fakeServer({ basePath: "/gateway/agents/" });
  expect(fake.url.endsWith("/gateway/agents")).toBe(true);
  const root = `http://127.0.0.1:${fake.port}`;
  const outside = await call(root, "GET", `/v1/agents/agent-a/conversations/${crypto.randomUUID()}/messages`, AUTH);
  expect(expectError(outside, 404, "not_found").error.message).toContain("/gateway/agents/v1");
  expectError(
    await call(root, "GET", "/gateway/agentsv1/agents/agent-a/conversations/x/messages", AUTH),
    404,
    "not_found",
  );
  expect((await call(root, "GET", "/__fake/health", {})).status).toBe(200);
  expectError(await call(fake.url, "GET", "/__fake/health", {}), 404, "not_found");
  // Under the prefix the fake's own answers hold: the key check, then the route.
  expectError(await call(fake.url, "GET", "/v2/anything", {}), 404, "not_found");
  expectError(await call(fake.url, "GET", "/v1/anything", {}), 401, "unauthorized");
});

test.each([
  ["api/agents", 'start with "/"'],
  ["/api/../admin", '"." or ".."'],
  ["/api/./x", '"." or ".."'],
  ["/api?x=1", "query or a fragment"],
  ["/api#top", "query or a fragment"],
  ["/api//agents", "non-empty"],
  ["/api agents", "URL path characters"],
  ["/__fake", "control endpoints"],
  ["/api/v1", "before /v1"],
])("basePath %j is refused: it must %s", (path, why) => {
  expect(basePathProblem(path)).toContain(why);
  expect(() => resolveOptions({ basePath: path })).toThrow(OptionsError);
});

test('good base paths are kept, a trailing slash dropped, and "/" means none', () => {
  expect(basePathProblem("/api/agents-service")).toBeUndefined();
  expect(basePathProblem("/tenant%2Fa/x~y")).toBeUndefined();
  expect(resolveOptions({ basePath: "/api/" }).basePath).toBe("/api");
  expect(resolveOptions({ basePath: "/" }).basePath).toBe("");
  expect(resolveOptions({}).basePath).toBe("");
  expect(resolveOptions({ variants: ["base-path"], basePath: "/other" }).basePath).toBe("/other");
  expect(() => resolveOptions({ basePath: 7 } as never)).toThrow("basePath must be a string");
});
