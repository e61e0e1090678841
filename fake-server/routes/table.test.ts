import { expect, test } from "vitest";
import { call } from "../test-support/client.ts";
import { expectError } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";
import { buildRoutes } from "./table.ts";

/** "POST|GET /a/{id}, DELETE /b" as one "METHOD path" per method. */
function listed(message: string): string[] {
  const routes = message.slice(message.indexOf("the routes are: ") + "the routes are: ".length);
  return routes.split(", ").flatMap((entry) => {
    const [methods = "", path = ""] = entry.split(" ");
    return methods.split("|").map((method) => `${method} ${path}`);
  });
}

test.each([
  ["/v1", "GET", "/v1/nowhere"],
  ["/__fake", "DELETE", "/__fake/nowhere"],
  ["any other path", "POST", "/nowhere"],
])("a 404 under %s lists every method of every route", async (_, method, path) => {
  const fake = await fakeServer();
  const reply = await call(fake.url, method, path, { authorization: "Bearer sk-fake-a" });
  const { message } = expectError(reply, 404, "not_found").error;
  const served = buildRoutes(() => {}).flatMap((route) =>
    [...route.methods.keys()].map((verb) => `${verb} ${route.pattern.replace(/:(\w+)/g, "{$1}")}`),
  );
  expect(listed(message).sort()).toEqual(served.sort());
  for (const endpoint of [
    "GET /__fake/faults",
    "DELETE /__fake/faults",
    "GET /__fake/answers",
    "DELETE /__fake/answers",
  ]) {
    expect(listed(message)).toContain(endpoint);
  }
});
