/**
 * The files of the throwaway project that installs the packed package: an ESM script that uses
 * every export at run time, and a TypeScript file that must type-check against the shipped
 * declarations (its @ts-expect-error lines fail the check if the types were lost).
 */

export const CONSUMER_PACKAGE_JSON = `${JSON.stringify({ name: "conformance-consumer", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`;

/** Prints one JSON line on success; any failed assertion exits non-zero with its message. */
export const SMOKE_MJS = `import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import {
  ResponseResult, MessagePage, ErrorBody, createFakeServer, createClient, createPool, Semaphore, Redactor,
  REQUIREMENTS, requirementById, DEFAULT_KEYS,
} from "agent-service-conformance";
import * as schemas from "agent-service-conformance/schemas";
import { createFakeServer as createFakeServerFromFake } from "agent-service-conformance/fake";
import { createClient as createClientFromClient } from "agent-service-conformance/client";
import { REQUIREMENTS as requirementsFromRequirements } from "agent-service-conformance/requirements";
import { runConformance } from "agent-service-conformance/runner";
import openapi from "agent-service-conformance/openapi.json" with { type: "json" };
import fakeOpenapi from "agent-service-conformance/openapi/fake.json" with { type: "json" };

assert.equal(createFakeServerFromFake, createFakeServer);
assert.equal(createClientFromClient, createClient);
assert.equal(requirementsFromRequirements, REQUIREMENTS);
assert.equal(schemas.ResponseResult, ResponseResult);
assert.equal(typeof runConformance, "function");
assert.equal(requirementById("LIST-6")?.level, "SHOULD");
assert.throws(() => ResponseResult.parse({ conversation_id: "not-a-uuid", response: "", citations: [] }));

const server = await createFakeServer({ seed: 7 });
try {
  const [apiKey, agents] = DEFAULT_KEYS[0].split("=");
  const agentId = agents.split(",")[0];
  const pool = createPool(server.url, 2, 5_000);
  try {
    const client = createClient({
      baseUrl: server.url,
      primary: { apiKey, agentId },
      limits: { requestTimeoutMs: 5_000, firstEventTimeoutMs: 5_000, idleTimeoutMs: 5_000, streamTimeoutMs: 10_000, maxStreamBytes: 1 << 20, maxResponseBytes: 1 << 20 },
      dispatcher: pool,
      semaphore: new Semaphore(2),
      redactor: new Redactor([apiKey]),
      idempotencyKey: () => randomUUID(),
    });
    const created = await client.create({ body: { message: "What are your opening hours?" } });
    assert.equal(created.status, 200, created.text);
    const result = ResponseResult.parse(created.json);
    const listed = await client.list(result.conversation_id);
    const page = MessagePage.parse(listed.json);
    assert.ok(page.items.length > 0);
    const unknown = await client.list(randomUUID());
    assert.equal(ErrorBody.parse(unknown.json).error.code, "conversation_not_found");
  } finally {
    await pool.close();
  }
} finally {
  await server.close();
}
assert.equal(fakeOpenapi.openapi, openapi.openapi);
console.log(JSON.stringify({ ok: true, requirements: REQUIREMENTS.length, openapi: openapi.openapi }));
`;

export const CONSUMER_TS = `import { createFakeServer, REQUIREMENTS, ResponseResult, type FakeServer, type Requirement, type ServiceClient } from "agent-service-conformance";
import type { RunOutcome } from "agent-service-conformance/runner";

export const parsed: ResponseResult = ResponseResult.parse({});
export const started: Promise<FakeServer> = createFakeServer({ port: 0, seed: 1 });
export const first: Requirement | undefined = REQUIREMENTS[0];
export type Exit = RunOutcome["exitCode"];
export type List = ServiceClient["list"];

// @ts-expect-error conversation_id is a string
export const wrong: ResponseResult = { conversation_id: 1, response: "", citations: [] };
// @ts-expect-error the fake has no such option
export const alsoWrong: Promise<FakeServer> = createFakeServer({ colour: "blue" });
`;

/** A strict project whose Node types come from the repository: the consumer installs nothing but the package. */
function strictTsconfig(typeRoots: string, extra: Record<string, unknown>, sources: Record<string, string[]>): string {
  return `${JSON.stringify(
    {
      compilerOptions: {
        target: "ES2023",
        module: "nodenext",
        moduleResolution: "nodenext",
        strict: true,
        noEmit: true,
        ...extra,
        skipLibCheck: true,
        typeRoots: [typeRoots],
        types: ["node"],
      },
      ...sources,
    },
    null,
    2,
  )}\n`;
}

export function consumerTsconfig(typeRoots: string): string {
  return strictTsconfig(typeRoots, {}, { files: ["consumer.ts"] });
}

/** The guide whose TypeScript blocks the package test writes out and runs as printed. */
export const GUIDE = "fake-server/CLIENT-TESTING.md";

export interface GuideFile {
  /** Where the block says it lives in the reader's project. */
  path: string;
  text: string;
}

/**
 * Every ```ts block of the guide is a whole file, named on its first line (`// test/x.test.ts`).
 * A block without a name, with a path outside the project, or naming a file twice is an error,
 * so no block can drop out of the test unnoticed.
 */
export function guideFiles(markdown: string): GuideFile[] {
  const blocks = [...markdown.matchAll(/^```(?:ts|typescript)[ \t]*\n([\s\S]*?)^```[ \t]*$/gm)].map(
    (match) => match[1] ?? "",
  );
  const files = blocks.map((text) => {
    const path = /^\/\/ (\S+\.ts)\n/.exec(text)?.[1];
    if (path === undefined) throw new Error(`a ts block of the guide does not start with "// <file>.ts":\n${text}`);
    if (path.startsWith("/") || path.split("/").includes(".."))
      throw new Error(`a ts block of the guide names a path outside the project: ${path}`);
    return { path, text };
  });
  const paths = files.map((file) => file.path);
  const repeated = paths.filter((path, index) => paths.indexOf(path) !== index);
  if (repeated.length > 0) throw new Error(`the guide names ${repeated.join(", ")} more than once`);
  return files;
}

/** The compiler options the guide asks for (allowImportingTsExtensions, noEmit) on a strict project. */
export function guideTsconfig(typeRoots: string): string {
  return strictTsconfig(typeRoots, { allowImportingTsExtensions: true }, { include: ["**/*.ts"] });
}
