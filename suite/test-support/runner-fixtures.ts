/**
 * Fixtures for the runner's own tests: tiny check directories written to a temporary folder,
 * and a hand-built target whose answers make each check pass or fail on purpose.
 */

import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { onTestFinished } from "vitest";
import { serveHttp, type LocalServer, type Register } from "./local-servers.ts";
import type { ConformanceReport } from "../report/report-types.ts";
import { Redactor } from "../http/redact.ts";
import type { ReportContext } from "../runner/build-report.ts";

export const ROOT = resolve(import.meta.dirname, "../..");
const CHECK_MODULE = join(ROOT, "suite/checks/runtime/check.ts");
export const KEY = "sk-runner-test-0123456789";
export const TINY_CONVERSATION = "8a1b7a8e-2f4e-4c1e-9d8a-5b6c7d8e9f01";

export async function tempDir(prefix: string, register: Register = onTestFinished): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  register(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A proxy in front of `upstream` that reads each whole answer, passes it through `rewrite`, and
 * sends it in one write: a gateway that buffers, or one that changes the bodies it carries.
 */
export function rewritingProxy(
  upstream: string,
  rewrite: (body: Buffer) => Buffer,
  register: Register = onTestFinished,
): Promise<LocalServer> {
  return serveHttp(async (req, res, body) => {
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name]) => !["host", "connection", "content-length"].includes(name)),
    ) as Record<string, string>;
    const answer = await fetch(`${upstream}${req.url ?? ""}`, {
      method: req.method ?? "GET",
      headers,
      body: body === "" ? undefined : body,
    });
    const kept = [...answer.headers].filter(
      ([name]) => !["content-length", "transfer-encoding", "connection", "keep-alive"].includes(name),
    );
    const whole = rewrite(Buffer.from(await answer.arrayBuffer()));
    res.writeHead(answer.status, { ...Object.fromEntries(kept), "content-length": String(whole.length) }).end(whole);
  }, register);
}

/** A check directory holding one file with the given check calls. */
export async function checksDir(source: string, register: Register = onTestFinished): Promise<string> {
  const dir = await tempDir("conformance-checks-", register);
  await writeFile(join(dir, "tiny.check.ts"), `import { check } from ${JSON.stringify(CHECK_MODULE)};\n${source}\n`);
  return dir;
}

export async function readReport(dir: string): Promise<ConformanceReport> {
  return JSON.parse(await readFile(join(dir, "conformance.json"), "utf8")) as ConformanceReport;
}

/** Every delete is 404, every listing 200 without asking for a key (echoing the Authorization header), every create 200. */
export function tinyTarget(register: Register = onTestFinished): Promise<LocalServer> {
  return serveHttp((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.method === "DELETE")
      res.writeHead(404).end(JSON.stringify({ error: { code: "conversation_not_found", message: "no" } }));
    else if (req.method === "POST")
      res.writeHead(200).end(JSON.stringify({ conversation_id: TINY_CONVERSATION, response: "hi", citations: [] }));
    else res.writeHead(200).end(JSON.stringify({ items: [], echo: req.headers.authorization ?? null }));
  }, register);
}

export const PASSING_DELETE = `
check(["DEL-2"], "deleting an unknown conversation is 404", { creates: 0 }, async (target) => {
  const res = await target.client.delete("00000000-0000-4000-8000-000000000000");
  if (res.status !== 404) throw new Error("expected 404, got " + res.status);
});`;

export const PASSING_CREATE = `
check(["RESP-1"], "a create is tracked for cleanup", { creates: 1 }, async (target) => {
  const res = await target.client.create({ body: { message: target.message("tiny") } });
  if (res.status !== 200) throw new Error("expected 200, got " + res.status);
  target.track(res.json.conversation_id);
});`;

/** DEL-2 and RESP-1 pass; SCOPE-3 skips without another key, LIST-5 for the budget. */
export const PASSING_MUST = `${PASSING_DELETE}${PASSING_CREATE}
check(["SCOPE-3"], "the other key sees no such conversation", { creates: 0, needs: ["otherApiKey"] }, async (target) => {
  const res = await target.client.list("00000000-0000-4000-8000-000000000000", { as: target.otherKey });
  if (res.status !== 404) throw new Error("expected 404, got " + res.status);
});
check(["LIST-5"], "a check too expensive for the budget", { creates: 500 }, async () => {
  throw new Error("must not run: the budget cannot cover it");
});`;

export const FAILING_SHOULD = `
check(["AUTH-2"], "a listing without a key is 401", { creates: 0 }, async (target) => {
  const res = await target.client.list("c", { as: { apiKey: null, agentId: target.primary.agentId } });
  if (res.status !== 401) throw new Error("expected 401, got " + res.status);
});`;

export const FAILING_MUST = `
check(["DEL-2"], "deleting an unknown conversation is 204 (deliberately wrong)", { creates: 0 }, async (target) => {
  const res = await target.client.delete("00000000-0000-4000-8000-000000000000");
  if (res.status !== 204) throw new Error("expected 204, got " + res.status);
});`;

export const OVERSPENDING = `
check(["RESP-1"], "spends a create it did not declare", { creates: 0 }, async (target) => {
  await target.client.create({ body: { message: "x" } });
});`;

/** A listing the target never answers, under a 300 ms deadline. */
export const SLOW = `
check(["LIST-1"], "waits on a target that never answers", { creates: 0, timeoutMs: 300 }, async (target) => {
  await target.client.list("c");
});`;

/** A check that quotes a body in which the target echoed the key: the key must still never be printed. */
export const QUOTING_ECHO = `
check(["LIST-1"], "quotes the echoed key in its failure", { creates: 0 }, async (target) => {
  const res = await target.client.list("00000000-0000-4000-8000-000000000000");
  throw new Error("target said: " + res.text);
});`;

/** The context a report is built in, for the report builder's and the baseline's unit tests. */
export function reportContext(overrides: Partial<ReportContext> = {}): ReportContext {
  return {
    target: "http://127.0.0.1:1 (agent a)",
    strict: false,
    only: [],
    exclude: [],
    runId: "run1",
    seed: 7,
    startedAt: "2026-01-01T00:00:00.000Z",
    durationMs: 12.4,
    creates: { budget: 150, spent: 3 },
    cleanup: { deleted: 2, failed: [] },
    harnessErrors: [],
    redactor: new Redactor([KEY]),
    ...overrides,
  };
}
