import { expect, test } from "vitest";
import { RequestLogPage } from "../request-log/schemas.ts";
import { createResponse } from "../test-support/client.ts";
import { fakeServer } from "../test-support/server.ts";
import { control } from "../test-support/control-client.ts";

test("journal entries carry the session, the headers with the key redacted, and the body", async () => {
  const fake = await fakeServer();
  await createResponse(fake.url, {
    key: "sk-fake-a",
    body: { message: "hello" },
    headers: { "x-fake-session": "j", "x-trace": "t-1" },
  });
  await createResponse(fake.url, { rawBody: "not json at all", headers: { "x-fake-session": "j" } });
  await createResponse(fake.url, { body: { message: "x".repeat(20_000) }, headers: { "x-fake-session": "j" } });
  const reply = await control(fake.url, "GET", "/__fake/requests", undefined, "j");
  expect(reply.text).not.toContain("sk-fake-a");
  const [plain, broken, huge] = RequestLogPage.parse(reply.json).requests;
  expect(plain).toMatchObject({ session: "j", body: { message: "hello" }, fault_rule: null, answer_rule: null });
  expect(plain?.headers).toMatchObject({
    authorization: "Bearer sk-fak…",
    "x-trace": "t-1",
    "x-fake-session": "j",
    "content-type": "application/json",
  });
  expect(broken).toMatchObject({ status: 400, body: "not json at all" });
  expect(typeof huge?.body).toBe("string");
  expect(String(huge?.body)).toHaveLength(8192);
});
