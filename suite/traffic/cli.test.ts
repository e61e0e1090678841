/**
 * The two traffic commands as a user runs them: `judge` over HAR files (exit codes 0, 1 and 2,
 * reports written) and `proxy` (listening line, a violation printed as it happens, reports and
 * HAR written on SIGTERM).
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { expect, onTestFinished, test } from "vitest";
import { createFakeServer } from "../../fake-server/index.ts";
import { runConformanceCli } from "../resilience/run-cli.ts";
import { writeHar } from "./har.ts";
import { judgeThroughProxy } from "./proof/judge-through-proxy.ts";
import { runTrafficScript } from "./proof/traffic-script.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const LIMIT_MS = 60_000;

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "traffic-cli-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A HAR of traffic to the fake with `options`, written to `dir`. */
async function recorded(dir: string, name: string, drive: (baseUrl: string) => Promise<void>, mutant?: string): Promise<string> {
  const run = await judgeThroughProxy(mutant === undefined ? {} : { mutant }, drive);
  const path = join(dir, name);
  await writeFile(path, JSON.stringify(writeHar(run.exchanges)));
  return path;
}

/** Traffic that keeps every client rule: one create, its listing. */
async function politeTraffic(baseUrl: string): Promise<void> {
  const headers = { authorization: "Bearer sk-fake-a", "content-type": "application/json" };
  const created = await fetch(`${baseUrl}/v1/agents/agent-a/responses`, { method: "POST", headers: { ...headers, "idempotency-key": crypto.randomUUID() }, body: JSON.stringify({ message: "hello" }) });
  const { conversation_id } = (await created.json()) as { conversation_id: string };
  await (await fetch(`${baseUrl}/v1/agents/agent-a/conversations/${conversation_id}/messages`, { headers })).text();
}

test("judge: 0 for conforming traffic, 1 for a broken service, with conformance.json, junit.xml and report.html", async () => {
  const dir = await folder();
  const good = await recorded(dir, "good.har", politeTraffic);
  const ok = await runConformanceCli(["judge", good, "--report-dir", join(dir, "good")], LIMIT_MS);
  expect(ok.code, ok.stdout + ok.stderr).toBe(0);
  expect(ok.stdout).toMatch(/Result: PASS — \d+ pass, 0 fail, 0 warn, \d+ not observed; 2 exchange\(s\) judged/);
  const report = JSON.parse(await readFile(join(dir, "good", "conformance.json"), "utf8")) as { requirements: { id: string; status: string }[] };
  expect(report.requirements.find((r) => r.id === "RESP-1")?.status).toBe("pass");
  expect(report.requirements.find((r) => r.id === "SCOPE-3")?.status).toBe("not_observed");
  expect(await readFile(join(dir, "good", "junit.xml"), "utf8")).toContain('<skipped message="not observed: traffic cannot show it');
  expect(await readFile(join(dir, "good", "report.html"), "utf8")).toContain("NOT OBSERVED");

  const bad = await recorded(dir, "bad.har", politeTraffic, "listing-names-other-id");
  const failed = await runConformanceCli(["judge", bad, "--report-dir", join(dir, "bad")], LIMIT_MS);
  expect(failed.code, failed.stdout + failed.stderr).toBe(1);
  expect(failed.stdout).toMatch(/^VIOLATION LIST-1 MUST /m);
}, 90_000);

test("judge: 2 for no file, a file that is not HAR, HAR without a request of the spec, and a bad --settle-ms", async () => {
  const dir = await folder();
  const notHar = join(dir, "not.har");
  await writeFile(notHar, JSON.stringify({ hello: "world" }));
  const empty = join(dir, "empty.har");
  await writeFile(empty, JSON.stringify({ log: { version: "1.2", entries: [] } }));
  const broken = join(dir, "broken.har");
  await writeFile(broken, "{");
  for (const args of [[], [notHar], [empty], [broken], [join(dir, "missing.har")], [notHar, "--settle-ms", "soon"]]) {
    const run = await runConformanceCli(["judge", ...args, "--report-dir", join(dir, "out")], LIMIT_MS);
    expect({ args, code: run.code }).toEqual({ args, code: 2 });
    expect(run.stderr).toMatch(/^agent-conformance judge: /m);
  }
}, 90_000);

test("proxy: listening line first, a client violation printed as it happens, reports and HAR on SIGTERM", async () => {
  const dir = await folder();
  const fake = await createFakeServer({ port: 0 });
  onTestFinished(() => fake.close());
  const tsx = join(ROOT, "node_modules/tsx/dist/cli.mjs");
  const child = spawn(process.execPath, [tsx, join(ROOT, "scripts/conformance.ts"), "proxy", "--upstream", fake.url, "--report-dir", join(dir, "reports"), "--har", join(dir, "seen.har")], { cwd: ROOT });
  onTestFinished(() => void child.kill("SIGKILL"));
  // Every line is kept as it comes: readline does not hold lines for a listener added later.
  const seen: string[] = [];
  createInterface({ input: child.stdout }).on("line", (line) => seen.push(line));
  const linesSoFar = async (count: number): Promise<string[]> => {
    const deadline = Date.now() + 20_000;
    while (seen.length < count) {
      if (Date.now() > deadline) throw new Error(`fewer than ${count} lines within 20 s: ${seen.join(" | ")}`);
      await new Promise((resolveWait) => setTimeout(resolveWait, 20));
    }
    return seen.slice(0, count);
  };
  const [listening = ""] = await linesSoFar(1);
  expect(listening).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
  const proxyUrl = listening.slice("listening on ".length);
  await runTrafficScript(proxyUrl);
  // The script breaks CLIENT-1, -2 and -3 on purpose: each is printed as it happens.
  const printed = () => new Set(seen.map((line) => /^VIOLATION (CLIENT-\d+) MUST /.exec(line)?.[1]).filter((id) => id !== undefined));
  const deadline = Date.now() + 20_000;
  while (printed().size < 3 && Date.now() < deadline) await new Promise((resolveWait) => setTimeout(resolveWait, 20));
  expect([...printed()].sort()).toEqual(["CLIENT-1", "CLIENT-2", "CLIENT-3"]);
  expect(seen.filter((line) => line.startsWith("VIOLATION")).every((line) => line.startsWith("VIOLATION CLIENT-"))).toBe(true);
  const exited = new Promise<number | null>((resolveExit) => child.once("exit", resolveExit));
  child.kill("SIGTERM");
  expect(await exited).toBe(1);
  const report = JSON.parse(await readFile(join(dir, "reports", "conformance.json"), "utf8")) as { target: string; requirements: { id: string; status: string }[] };
  expect(report.requirements.filter((r) => r.status === "fail").map((r) => r.id).sort()).toEqual(["CLIENT-1", "CLIENT-2", "CLIENT-3"]);
  const har = await readFile(join(dir, "seen.har"), "utf8");
  expect(har).not.toContain("sk-fake-a");
  expect(JSON.parse(har).log.entries.length).toBeGreaterThan(20);
}, 90_000);

test("proxy: a bad flag or a missing --upstream is exit 2 with a message", async () => {
  for (const args of [["proxy"], ["proxy", "--upstream", "ftp://x"], ["proxy", "--upstream", "http://127.0.0.1:1/v1"], ["proxy", "--upstream", "http://x", "--port", "99999"], ["proxy", "--upstream", "http://x", "--settle-ms", "-1"], ["proxy", "--colour"]]) {
    const run = await runConformanceCli(args, LIMIT_MS);
    expect({ args, code: run.code }).toEqual({ args, code: 2 });
    expect(run.stderr).toMatch(/agent-conformance proxy: /);
  }
}, 90_000);
