/**
 * runConformance in-process: every exit code reached on purpose, with tiny check directories
 * against a hand-built target or the embedded fake.
 */

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { REQUIREMENTS } from "../../requirements/catalog.ts";
import { closedPortUrl, serveHttp } from "../test-support/local-servers.ts";
import { PROFILE_MAX_CREATES, type ConformanceInput } from "./config.ts";
import { runConformance, type RunOutcome } from "./run.ts";
import {
  checksDir,
  FAILING_MUST,
  FAILING_SHOULD,
  KEY,
  OVERSPENDING,
  PASSING_DELETE,
  PASSING_MUST,
  readReport,
  SLOW,
  tempDir,
  TINY_CONVERSATION,
  tinyTarget,
} from "../test-support/runner-fixtures.ts";

interface Captured extends RunOutcome {
  output: string;
  lines: string[];
}

async function run(input: ConformanceInput): Promise<Captured> {
  const lines: string[] = [];
  // A run that stops with exit 2 writes its reports too: never into the repository's reports/.
  const reportDir = input.reportDir ?? (await tempDir("conformance-run-"));
  const outcome = await runConformance(
    { ...input, reportDir },
    { progress: false, print: (l) => lines.push(l), printError: (l) => lines.push(l) },
  );
  return { ...outcome, output: lines.join("\n"), lines };
}

const live = (url: string) => ({ baseUrl: url, apiKey: KEY, agentId: "agent-x" });

describe("exit 2 before any check runs", () => {
  test("an unreachable base URL, with the reason and without the key", async () => {
    const result = await run(live(await closedPortUrl()));
    expect(result.exitCode).toBe(2);
    expect(result.report).toBeUndefined();
    expect(result.output).toContain("ECONNREFUSED");
    expect(result.output).not.toContain(KEY);
  });

  test("a target that accepts the connection but never answers", async () => {
    const server = await serveHttp(() => {
      // Never answers.
    });
    const result = await run({ ...live(server.url), requestTimeoutMs: 200 });
    expect(result.exitCode).toBe(2);
    expect(result.output).toContain("did not answer a first request");
  });

  test("a base URL without an API key or agent id", async () => {
    const result = await run({ baseUrl: "http://127.0.0.1:9" });
    expect(result.exitCode).toBe(2);
    expect(result.output).toContain("--api-key (or CONFORMANCE_API_KEY): is required with --base-url");
    expect(result.output).toContain("--agent-id (or CONFORMANCE_AGENT_ID): is required with --base-url");
  });

  test("an --only glob that selects no requirement", async () => {
    const result = await run({ only: ["SSE-1", "NOPE-*"] });
    expect(result.exitCode).toBe(2);
    expect(result.output).toContain("--only NOPE-* selects no requirement");
  });

  test("a checks directory that does not exist", async () => {
    const result = await run({ checksDir: "/nonexistent/checks" });
    expect(result.exitCode).toBe(2);
    expect(result.output).toContain("no such directory");
  });

  test("a usage error still writes the three reports, with result error and the diagnosis", async () => {
    const reportDir = await tempDir("conformance-usage-");
    const result = await run({ baseUrl: "http://127.0.0.1:9", apiKey: KEY, reportDir });
    expect(result.exitCode).toBe(2);
    const report = await readReport(reportDir);
    expect(report.result).toBe("error");
    expect(report.diagnosis).toBe("--agent-id (or CONFORMANCE_AGENT_ID): is required with --base-url");
    expect(report.target).toBe("http://127.0.0.1:9");
    expect(await readFile(join(reportDir, "junit.xml"), "utf8")).toContain("is required with --base-url");
    expect(await readFile(join(reportDir, "report.html"), "utf8")).toContain(
      "<title>Conformance ERROR: http://127.0.0.1:9</title>",
    );
    for (const name of ["conformance.json", "junit.xml", "report.html"])
      expect(await readFile(join(reportDir, name), "utf8")).not.toContain(KEY);
  });

  test("the same key for --api-key and --other-api-key, or the same agent for both agent flags: one line naming the flags", async () => {
    const sameKey = await run({ ...live("http://127.0.0.1:9"), otherApiKey: KEY });
    expect(sameKey.exitCode).toBe(2);
    expect(sameKey.lines).toEqual([
      expect.stringMatching(/^agent-conformance: --api-key and --other-api-key .* are the same key: /),
    ]);
    expect(sameKey.output).not.toContain(KEY);
    const sameAgent = await run({ ...live("http://127.0.0.1:9"), otherAgentId: " agent-x" });
    expect(sameAgent.exitCode).toBe(2);
    expect(sameAgent.lines).toEqual([
      expect.stringMatching(/^agent-conformance: --agent-id and --other-agent-id .* name the same agent: /),
    ]);
  });

  test("an empty base URL is an error naming it, not a run against the embedded fake", async () => {
    const result = await run({ baseUrl: "" });
    expect(result.exitCode).toBe(2);
    expect(result.output).toContain("--base-url (or CONFORMANCE_BASE_URL): is empty");
  });

  test("fake options the embedded fake refuses", async () => {
    const result = await run({ checksDir: await checksDir(PASSING_MUST), fakeOptions: { seed: -1 } });
    expect(result.exitCode).toBe(2);
    expect(result.output).toContain("could not start the embedded fake");
  });
});

describe("runs that reach the checks", () => {
  test("0 when every selected MUST passes; a failed SHOULD warns; cleanup deletes as the owner", async () => {
    const server = await tinyTarget();
    const reports = await tempDir("conformance-reports-");
    const only = ["DEL-2", "RESP-1", "AUTH-2"];
    const result = await run({
      ...live(server.url),
      checksDir: await checksDir(PASSING_MUST + FAILING_SHOULD),
      reportDir: reports,
      only,
    });
    expect(result.exitCode, result.output).toBe(0);
    const report = await readReport(reports);
    expect(result.report).toEqual(report);
    const requirement = (id: string) => report.requirements.find((r) => r.id === id);
    expect(requirement("DEL-2")?.status).toBe("pass");
    expect(requirement("AUTH-2")).toMatchObject({ status: "warn", reason: "expected 401, got 200" });
    // The fixture's other checks were not selected: the user's choice, not a gap in the run.
    expect(requirement("SCOPE-3")).toMatchObject({ status: "skip", reason: "not selected by --only", excluded: true });
    expect(report.incomplete).toEqual([]);
    expect(report.creates).toEqual({ budget: PROFILE_MAX_CREATES.full, spent: 1 });
    // The tiny target answers every DELETE 404: the conversation the run created was not found at cleanup, not cleaned up.
    expect(report.cleanup).toEqual({ deleted: 0, failed: [], notFound: [TINY_CONVERSATION] });
    expect(result.output).toContain("Cleanup: 1 conversation(s) this run created were not found at cleanup");
    expect(result.output).toContain("; 0 conversation(s) cleaned up");
    // The create carried run-scoped key and message; cleanup asked to delete exactly that conversation, as its owner.
    const create = server.requests.find((r) => r.method === "POST");
    expect(create?.headers["idempotency-key"]).toMatch(new RegExp(`^conf-${report.runId}-`));
    expect(create?.body).toContain(`conf-${report.runId}-tiny-`);
    const deletes = server.requests
      .filter((r) => r.method === "DELETE")
      .map((r) => `${r.url} ${r.headers.authorization}`);
    expect(deletes).toEqual([
      `/v1/agents/agent-x/conversations/00000000-0000-4000-8000-000000000000 Bearer ${KEY}`,
      `/v1/agents/agent-x/conversations/${TINY_CONVERSATION} Bearer ${KEY}`,
    ]);
    expect(result.output).toMatch(
      /^tiny +3\/3 checks +1 failed +3 requirements judged: +2 pass +0 fail +1 warn +0 skip/m,
    );
    expect(result.output).toContain("WARN AUTH-2 (SHOULD)");
    expect(result.output).toMatch(/Result: PASS — 2 pass, 0 fail, 1 warn, \d+ skip, 0 inconclusive/);
    expect(result.output).not.toContain("Not judged");
    expect(result.output).not.toContain(KEY);
    const files = await Promise.all(
      ["conformance.json", "junit.xml", "report.html"].map((f) => readFile(join(reports, f), "utf8")),
    );
    for (const text of files) expect(text).not.toContain(KEY);
    expect(files[1]).toContain("[DEL-2] deleting an unknown conversation is 404");
  });

  test("3 when no MUST failed but some were not judged: the last lines and conformance.json name every one, with why", async () => {
    const server = await tinyTarget();
    const reports = await tempDir("conformance-reports-");
    const result = await run({ ...live(server.url), checksDir: await checksDir(PASSING_MUST), reportDir: reports });
    expect(result.exitCode, result.output).toBe(3);
    const report = await readReport(reports);
    expect(report.result).toBe("incomplete");
    // junit.xml says so too: every unjudged MUST is a skipped test case, with why.
    const junit = await readFile(join(reports, "junit.xml"), "utf8");
    expect(junit).toMatch(
      /<testcase classname="not judged" name="\[SCOPE-3\] MUST [^"]*" time="0">\s*<skipped message="SCOPE-3 skipped: needs --other-api-key"\/>/,
    );
    expect(junit).toContain('<skipped message="needs --other-api-key"/>');
    expect(await readFile(join(reports, "report.html"), "utf8")).toContain("<title>Conformance INCOMPLETE: ");
    // Every MUST but the two that passed: two skipped by their checks, the rest with no check here.
    const judged = ["RESP-1", "DEL-2"];
    const expected = REQUIREMENTS.filter(
      (r) => r.family !== "client" && r.level === "MUST" && !judged.includes(r.id),
    ).map((r) => r.id);
    expect(report.incomplete.map((r) => r.id)).toEqual(expected);
    const reasonOf = (id: string) => report.incomplete.find((r) => r.id === id)?.reason;
    expect(reasonOf("SCOPE-3")).toBe("needs --other-api-key");
    expect(reasonOf("LIST-5")).toMatch(/^budget: needs 500 creates, \d+ left$/);
    expect(reasonOf("SSE-1")).toBe("no check covers this requirement");
    expect(report.incomplete.every((r) => r.status === "skip")).toBe(true);

    const n = report.incomplete.length;
    expect(result.lines.slice(-(n + 4))).toEqual([
      `Not judged: ${n} MUST requirement(s) were skipped or inconclusive (exit 3 unless something failed):`,
      ...report.incomplete.map((r) => `  ${r.id} skip: ${r.reason}`),
      "",
      expect.stringMatching(/^Result: INCOMPLETE — 2 pass, 0 fail, 0 warn, \d+ skip, 0 inconclusive;/),
      `Reports: ${reports}`,
    ]);
  });

  test("1 when a SHOULD fails under --strict", async () => {
    const server = await tinyTarget();
    const reports = await tempDir("conformance-reports-");
    const result = await run({
      ...live(server.url),
      checksDir: await checksDir(FAILING_SHOULD),
      reportDir: reports,
      strict: true,
    });
    expect(result.exitCode, result.output).toBe(1);
    expect(result.report?.requirements.find((r) => r.id === "AUTH-2")?.status).toBe("fail");
  });

  test("1 when a MUST fails, and the summary shows the exchange that showed it", async () => {
    const server = await tinyTarget();
    const reports = await tempDir("conformance-reports-");
    const result = await run({ ...live(server.url), checksDir: await checksDir(FAILING_MUST), reportDir: reports });
    expect(result.exitCode, result.output).toBe(1);
    expect(result.output).toContain("FAIL DEL-2 (MUST)");
    expect(result.output).toContain("expected 204, got 404");
    expect(result.output).toContain("< 404");
    expect(result.output).toContain("Bearer sk-r…(redacted)");
    expect(result.output).not.toContain(KEY);
    const failed = result.report?.requirements.find((r) => r.id === "DEL-2")?.tests[0];
    expect(failed?.transcripts?.[0]?.response?.status).toBe(404);
  });

  test("3 when a check outlives its deadline: inconclusive, naming --check-timeout, skipped in JUnit; its request is cut off", async () => {
    let hungRequestClosed = false;
    const server = await serveHttp((req, res) => {
      if (req.url?.includes("/conversations/c/")) {
        res.on("close", () => (hungRequestClosed = true));
        return; // Never answers the check.
      }
      // The spec's answer for an unknown conversation, so the preflight takes it for this API.
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { code: "conversation_not_found", message: "no such conversation" } }));
    });
    const reports = await tempDir("conformance-reports-");
    const result = await run({
      // No create is needed (the checks make none), so the preflight makes none either.
      ...live(server.url),
      checksDir: await checksDir(PASSING_DELETE + SLOW),
      reportDir: reports,
      requestTimeoutMs: 20_000,
      only: ["DEL-2", "LIST-1"],
      maxCreates: 0,
    });
    expect(result.exitCode, result.output).toBe(3);
    expect(hungRequestClosed).toBe(true);

    const report = await readReport(reports);
    const list1 = report.requirements.find((r) => r.id === "LIST-1");
    expect(list1?.status).toBe("inconclusive");
    expect(list1?.reason).toContain("did not finish within 300 ms");
    expect(list1?.reason).toContain("--check-timeout");
    expect(list1?.tests.map((t) => t.status)).toEqual(["inconclusive"]);
    expect(report.counts).toMatchObject({ pass: 1, fail: 0, inconclusive: 1 });
    expect(report.incomplete).toEqual([{ id: "LIST-1", status: "inconclusive", reason: list1?.reason }]);
    expect(result.output).toContain(`  LIST-1 inconclusive: ${list1?.reason}`);
    expect(result.output).toMatch(/Result: INCOMPLETE — 1 pass, 0 fail, 0 warn, \d+ skip, 1 inconclusive/);

    // JUnit has no "inconclusive": the check is skipped there, not failed, and an annotation names why.
    const junit = await readFile(join(reports, "junit.xml"), "utf8");
    const testcase = junit.match(
      /<testcase [^>]*name="\[LIST-1\] waits on a target that never answers"[^>]*>([\s\S]*?)<\/testcase>/,
    )?.[1];
    expect(testcase, junit).toBeDefined();
    expect(testcase).toContain("<skipped");
    expect(testcase).not.toContain("<failure");
    expect(testcase).toMatch(/<property name="inconclusive" value="[^"]*--check-timeout/);
  });

  test("2 when a check breaks the harness contract by spending creates it did not declare", async () => {
    const server = await tinyTarget();
    const reports = await tempDir("conformance-reports-");
    const result = await run({ ...live(server.url), checksDir: await checksDir(OVERSPENDING), reportDir: reports });
    expect(result.exitCode, result.output).toBe(2);
    expect(result.report?.harnessErrors.join("\n")).toContain("declared creates: 0");
    expect(server.requests.filter((r) => r.method === "POST")).toEqual([]);
  });

  test("2 when --only selects requirements no check here covers (nothing executed)", async () => {
    const server = await tinyTarget();
    const reports = await tempDir("conformance-reports-");
    const result = await run({
      ...live(server.url),
      checksDir: await checksDir(FAILING_MUST),
      reportDir: reports,
      only: ["SSE-*"],
    });
    expect(result.exitCode, result.output).toBe(2);
    expect(result.report?.requirements.find((r) => r.id === "DEL-2")?.reason).toBe("not selected by --only");
    expect(server.requests.filter((r) => r.method === "DELETE")).toEqual([]);
  });

  test("without a base URL the embedded fake is the target, with its default identities", async () => {
    const reports = await tempDir("conformance-reports-");
    const only = ["RESP-1", "DEL-2", "SCOPE-3"];
    const result = await run({
      checksDir: await checksDir(PASSING_MUST),
      reportDir: reports,
      fakeOptions: { seed: 3 },
      only,
    });
    expect(result.exitCode, result.output).toBe(0);
    expect(result.report?.target).toContain("embedded fake");
    // The fake's default identities include another key, so the check that needs it ran.
    expect(result.report?.requirements.filter((r) => r.status === "pass").map((r) => r.id)).toEqual(only);
    expect(result.report?.cleanup).toEqual({ deleted: 1, failed: [] });
    expect(result.output).not.toContain("sk-fake-a");
    expect(result.output).not.toContain("sk-fake-b");
  });
});
