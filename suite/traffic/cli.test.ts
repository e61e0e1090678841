/**
 * The two traffic commands as a user runs them: `judge` over HAR files (exit codes 0, 1 and 2,
 * reports written, --gate) and `proxy` (listening line, a violation printed as it happens,
 * reports and HAR written on SIGTERM, a stream still running at SIGTERM recorded as far as it
 * went, an upstream that never answered and the warning at start that says so).
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
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
import { conformanceCli } from "../test-support/conformance-cli.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const LIMIT_MS = 60_000;

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "traffic-cli-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A HAR of traffic to the fake with `options`, written to `dir`. */
async function recorded(
  dir: string,
  name: string,
  drive: (baseUrl: string) => Promise<void>,
  mutant?: string,
): Promise<string> {
  const run = await judgeThroughProxy(mutant === undefined ? {} : { mutant }, drive);
  const path = join(dir, name);
  await writeFile(path, JSON.stringify(writeHar(run.exchanges)));
  return path;
}

/** Traffic that keeps every client rule: one create, its listing. */
async function politeTraffic(baseUrl: string): Promise<void> {
  const headers = { authorization: "Bearer sk-fake-a", "content-type": "application/json" };
  const created = await fetch(`${baseUrl}/v1/agents/agent-a/responses`, {
    method: "POST",
    headers: { ...headers, "idempotency-key": crypto.randomUUID() },
    body: JSON.stringify({ message: "hello" }),
  });
  const { conversation_id } = (await created.json()) as { conversation_id: string };
  await (await fetch(`${baseUrl}/v1/agents/agent-a/conversations/${conversation_id}/messages`, { headers })).text();
}

test("judge: 0 for conforming traffic, 1 for a broken service, with conformance.json, junit.xml and report.html", async () => {
  const dir = await folder();
  const good = await recorded(dir, "good.har", politeTraffic);
  const ok = await runConformanceCli(["judge", good, "--report-dir", join(dir, "good")], LIMIT_MS);
  expect(ok.code, ok.stdout + ok.stderr).toBe(0);
  expect(ok.stdout).toMatch(/^Service: PASS — \d+ pass, 0 fail, 0 warn, \d+ not observed$/m);
  expect(ok.stdout).toMatch(/^Result: PASS \(--gate service\) — 2 exchange\(s\) judged$/m);
  const report = JSON.parse(await readFile(join(dir, "good", "conformance.json"), "utf8")) as {
    requirements: { id: string; status: string }[];
  };
  expect(report.requirements.find((r) => r.id === "RESP-1")?.status).toBe("pass");
  expect(report.requirements.find((r) => r.id === "SCOPE-3")?.status).toBe("not_observed");
  expect(await readFile(join(dir, "good", "junit.xml"), "utf8")).toContain(
    '<skipped message="not observed: traffic cannot show it',
  );
  expect(await readFile(join(dir, "good", "report.html"), "utf8")).toContain("NOT OBSERVED");

  const bad = await recorded(dir, "bad.har", politeTraffic, "listing-names-other-id");
  const failed = await runConformanceCli(["judge", bad, "--report-dir", join(dir, "bad")], LIMIT_MS);
  expect(failed.code, failed.stdout + failed.stderr).toBe(1);
  expect(failed.stdout).toMatch(/^VIOLATION LIST-1 MUST /m);
}, 90_000);

test("judge: a HAR of another site, or with no entry, says that nothing was judged (exit 2, result error in every report), never PASS", async () => {
  const dir = await folder();
  const otherSite = join(dir, "other.har");
  const entry = {
    startedDateTime: "2026-11-25T10:00:00.000Z",
    time: 5,
    request: { method: "GET", url: "https://shop.example/cart", headers: [] },
    response: { status: 200, headers: [], content: { size: 2, text: "{}" } },
  };
  await writeFile(otherSite, JSON.stringify({ log: { version: "1.2", entries: [entry] } }));
  const empty = join(dir, "empty.har");
  await writeFile(empty, JSON.stringify({ log: { version: "1.2", entries: [] } }));
  for (const [file, why] of [
    [otherSite, /none of the 1 request\(s\) is an operation of the spec/],
    [empty, /the files hold no request/],
  ] as const) {
    const out = join(dir, "out");
    const run = await runConformanceCli(["judge", file, "--report-dir", out], LIMIT_MS);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stdout).not.toMatch(/PASS/);
    expect(run.stdout).toMatch(/^Result: ERROR — nothing was judged/m);
    expect(run.stderr).toMatch(why);
    const report = JSON.parse(await readFile(join(out, "conformance.json"), "utf8")) as {
      result: string;
      diagnosis: string;
    };
    expect(report.result).toBe("error");
    expect(report.diagnosis).toMatch(why);
    expect(await readFile(join(out, "junit.xml"), "utf8")).toMatch(/<error message="nothing was judged/);
    expect(await readFile(join(out, "report.html"), "utf8")).toMatch(/<title>Conformance ERROR/);
  }
}, 90_000);

test("judge --gate: the careless client fails only a client or both gate; the reports show both verdicts apart, without creates, seed or cleanup", async () => {
  const dir = await folder();
  const har = await recorded(dir, "script.har", (baseUrl) => runTrafficScript(baseUrl));
  const exits: Record<string, number | null> = {};
  for (const gate of ["service", "client", "both"]) {
    const out = join(dir, gate);
    const run = await runConformanceCli(
      ["judge", har, "--report-dir", out, ...(gate === "service" ? [] : ["--gate", gate])],
      LIMIT_MS,
    );
    exits[gate] = run.code;
    const report = JSON.parse(await readFile(join(out, "conformance.json"), "utf8")) as {
      result: string;
      counts: Record<string, unknown>;
      requirements: { id: string; status: string }[];
      traffic: { gate: string; service: { result: string }; client: { result: string; fail: number } };
    };
    expect(report.traffic).toMatchObject({ gate, service: { result: "pass" }, client: { result: "fail", fail: 3 } });
    // The service and the client counted apart; nothing that belongs to an active run.
    const counted = (client: boolean, status: string) =>
      report.requirements.filter((r) => r.id.startsWith("CLIENT-") === client && r.status === status).length;
    expect(report.counts).toEqual({
      service: {
        pass: counted(false, "pass"),
        fail: 0,
        warn: 0,
        inconclusive: 0,
        not_observed: counted(false, "not_observed"),
      },
      client: {
        pass: counted(true, "pass"),
        fail: 3,
        warn: 0,
        inconclusive: 0,
        not_observed: counted(true, "not_observed"),
      },
    });
    expect(Object.keys(report).filter((key) => ["seed", "creates", "cleanup"].includes(key))).toEqual([]);
    expect(run.stdout).toMatch(/^Client: FAIL — \d+ pass, 3 fail/m);
    const junit = await readFile(join(out, "junit.xml"), "utf8");
    expect(junit).toMatch(/<testsuite name="service: [^"]*" tests="\d+" failures="0"/);
    expect(junit).toMatch(/<testsuite name="client: [^"]*" tests="\d+" failures="3"/);
    const page = await readFile(join(out, "report.html"), "utf8");
    expect(page).toMatch(/Exchanges judged<\/dt><dd id="exchanges-judged">\d+ of \d+ seen/);
    expect(page).toMatch(/id="not-observed">\d+ requirement/);
    expect(page).not.toMatch(/<dt>(Creates|Seed|Cleanup)<\/dt>/);
  }
  expect(exits).toEqual({ service: 0, client: 1, both: 1 });
  const bad = await runConformanceCli(["judge", har, "--gate", "everyone"], LIMIT_MS);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/--gate must be service, client or both/);
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
  const child = spawn(
    process.execPath,
    [
      ...conformanceCli(),
      "proxy",
      "--upstream",
      fake.url,
      "--report-dir",
      join(dir, "reports"),
      "--har",
      join(dir, "seen.har"),
      "--gate",
      "client",
    ],
    { cwd: ROOT },
  );
  onTestFinished(() => void child.kill("SIGKILL"));
  let stderr = "";
  child.stderr.on("data", (part: Buffer) => (stderr += part.toString()));
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
  const printed = () =>
    new Set(seen.map((line) => /^VIOLATION (CLIENT-\d+) MUST /.exec(line)?.[1]).filter((id) => id !== undefined));
  const deadline = Date.now() + 20_000;
  while (printed().size < 3 && Date.now() < deadline) await new Promise((resolveWait) => setTimeout(resolveWait, 20));
  expect([...printed()].sort()).toEqual(["CLIENT-1", "CLIENT-2", "CLIENT-3"]);
  expect(
    seen.filter((line) => line.startsWith("VIOLATION")).every((line) => line.startsWith("VIOLATION CLIENT-")),
  ).toBe(true);
  // --har streams: what was judged is on disk before the proxy stops.
  expect((await readFile(join(dir, "seen.har"), "utf8")).match(/"startedDateTime"/g)?.length ?? 0).toBeGreaterThan(20);
  const exited = new Promise<number | null>((resolveExit) => child.once("exit", resolveExit));
  child.kill("SIGTERM");
  expect(await exited).toBe(1);
  // The upstream answered the probe at start: no warning.
  expect(stderr).not.toMatch(/warning/);
  const report = JSON.parse(await readFile(join(dir, "reports", "conformance.json"), "utf8")) as {
    target: string;
    requirements: { id: string; status: string }[];
  };
  expect(
    report.requirements
      .filter((r) => r.status === "fail")
      .map((r) => r.id)
      .sort(),
  ).toEqual(["CLIENT-1", "CLIENT-2", "CLIENT-3"]);
  const har = await readFile(join(dir, "seen.har"), "utf8");
  expect(har).not.toContain("sk-fake-a");
  expect(JSON.parse(har).log.entries.length).toBeGreaterThan(20);
}, 90_000);

/** A port nothing listens on: one the system gave and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolveListen) => server.listen(0, "127.0.0.1", resolveListen));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolveClose) => server.close(resolveClose));
  return port;
}

test("proxy: SIGTERM during a slow stream records that exchange as far as it went (HAR _incomplete, time to first byte as wait), counts and judges it", async () => {
  const dir = await folder();
  const fake = await createFakeServer({ port: 0 });
  onTestFinished(() => fake.close());
  const child = spawn(
    process.execPath,
    [
      ...conformanceCli(),
      "proxy",
      "--upstream",
      fake.url,
      "--report-dir",
      join(dir, "reports"),
      "--har",
      join(dir, "seen.har"),
    ],
    { cwd: ROOT },
  );
  onTestFinished(() => void child.kill("SIGKILL"));
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (part: Buffer) => (stdout += part.toString()));
  child.stderr.on("data", (part: Buffer) => (stderr += part.toString()));
  const deadline = Date.now() + 20_000;
  while (!stdout.includes("\n") && Date.now() < deadline)
    await new Promise((resolveWait) => setTimeout(resolveWait, 20));
  const proxyUrl = /^listening on (\S+)$/m.exec(stdout)?.[1] ?? "";
  expect(proxyUrl).not.toBe("");
  // Two seconds between deltas: the stream outlasts the proxy's grace of two seconds at the stop.
  const answer = await fetch(`${proxyUrl}/v1/agents/agent-a/responses/stream`, {
    method: "POST",
    headers: {
      authorization: "Bearer sk-fake-a",
      "content-type": "application/json",
      accept: "text/event-stream",
      "idempotency-key": crypto.randomUUID(),
      "x-fake-fault": "delta-delay=2000",
    },
    body: JSON.stringify({ message: "tell me everything" }),
  });
  const reader = answer.body?.getReader();
  let received = "";
  const exited = new Promise<number | null>((resolveExit) => child.once("exit", resolveExit));
  let cut = false;
  while (reader !== undefined) {
    const part = await reader.read().catch(() => {
      cut = true;
      return { done: true as const, value: undefined };
    });
    if (part.done) break;
    received += new TextDecoder().decode(part.value);
    if ((received.match(/\n\n/g) ?? []).length === 3 && child.exitCode === null && child.signalCode === null)
      child.kill("SIGTERM");
  }
  expect(cut).toBe(true);
  expect(await exited, stdout + stderr).toBe(0);
  expect(stdout + stderr).not.toMatch(/no request reached the proxy|nothing was judged/);
  expect(stdout).toMatch(/^1 exchange\(s\) incomplete: cut before they ended/m);
  expect(stdout).toMatch(/^Result: PASS \(--gate service\) — 1 exchange\(s\) judged$/m);
  expect(stdout).toMatch(/^HAR: 1 exchange\(s\) written to /m);
  const [entry] = (
    JSON.parse(await readFile(join(dir, "seen.har"), "utf8")) as {
      log: {
        entries: {
          time: number;
          _incomplete?: boolean;
          timings: { wait: number; receive: number };
          response: { status: number; _error?: string; content: { text?: string } };
        }[];
      };
    }
  ).log.entries;
  expect(entry).toMatchObject({
    _incomplete: true,
    response: { status: 200, _error: "the proxy stopped before the exchange ended" },
  });
  // What the client got is in the HAR, the three events at least; the head came at once, the rest was receiving.
  expect(entry?.response.content.text?.startsWith(received.slice(0, received.lastIndexOf("\n\n") + 2))).toBe(true);
  expect(entry?.timings.wait).toBeLessThan(1_000);
  expect(entry?.timings.receive).toBeGreaterThan(4_000);
  const report = JSON.parse(await readFile(join(dir, "reports", "conformance.json"), "utf8")) as {
    result: string;
    traffic: { exchanges: object };
    requirements: { id: string; status: string }[];
  };
  expect(report.traffic.exchanges).toEqual({ seen: 1, judged: 1, unread: 0, unanswered: 0, incomplete: 1 });
  expect(report.result).toBe("pass");
  // Judged as far as it went: its events, not its end.
  const status = (id: string) => report.requirements.find((r) => r.id === id)?.status;
  expect([status("SSE-1"), status("SSE-2"), status("SSE-3")]).toEqual(["pass", "pass", "not_observed"]);
}, 90_000);

test("proxy: an upstream that never answered is exit 2 with that diagnosis; its 502s are counted, not judged", async () => {
  const dir = await folder();
  const upstream = `http://127.0.0.1:${await closedPort()}`;
  const child = spawn(
    process.execPath,
    [...conformanceCli(), "proxy", "--upstream", upstream, "--report-dir", join(dir, "reports")],
    { cwd: ROOT },
  );
  onTestFinished(() => void child.kill("SIGKILL"));
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (part: Buffer) => (stdout += part.toString()));
  child.stderr.on("data", (part: Buffer) => (stderr += part.toString()));
  const deadline = Date.now() + 20_000;
  while (!(stdout.includes("\n") && stderr.includes("\n")) && Date.now() < deadline)
    await new Promise((resolveWait) => setTimeout(resolveWait, 20));
  const proxyUrl = /^listening on (\S+)$/m.exec(stdout)?.[1] ?? "";
  expect(proxyUrl).not.toBe("");
  // Said at start, before any request, on one line; the proxy listens all the same.
  expect(stderr).toMatch(
    new RegExp(
      `^agent-conformance proxy: warning: the upstream ${upstream}/ could not be reached \\(.+\\); the proxy runs, and answers 502 upstream_unreachable until it can$`,
      "m",
    ),
  );
  expect(stderr.split("\n").filter((line) => line.includes("warning")).length).toBe(1);
  for (let i = 0; i < 3; i++) {
    const answer = await fetch(`${proxyUrl}/v1/agents/agent-a/responses`, {
      method: "POST",
      headers: { authorization: "Bearer sk-1", "content-type": "application/json", "idempotency-key": `k-${i}` },
      body: JSON.stringify({ message: "hi" }),
    });
    expect(answer.status).toBe(502);
  }
  const exited = new Promise<number | null>((resolveExit) => child.once("exit", resolveExit));
  child.kill("SIGTERM");
  expect(await exited, stdout + stderr).toBe(2);
  expect(stdout).not.toMatch(/PASS/);
  expect(stdout).toMatch(
    /^Result: ERROR — nothing was judged: the upstream never answered; each of the 3 request\(s\) got the proxy's 502/m,
  );
  expect(stdout).toMatch(/^3 exchange\(s\) not judged: no answer came from the upstream/m);
  expect(stderr).toMatch(/the upstream never answered/);
  const report = JSON.parse(await readFile(join(dir, "reports", "conformance.json"), "utf8")) as {
    result: string;
    traffic: { exchanges: { unanswered: number; judged: number } };
    requirements: { status: string }[];
  };
  expect(report.result).toBe("error");
  expect(report.traffic.exchanges).toMatchObject({ unanswered: 3, judged: 0 });
  expect(new Set(report.requirements.map((r) => r.status))).toEqual(new Set(["not_observed"]));
}, 90_000);

test("proxy: a bad flag or a missing --upstream is exit 2 with a message", async () => {
  for (const args of [
    ["proxy"],
    ["proxy", "--upstream", "ftp://x"],
    ["proxy", "--upstream", "http://127.0.0.1:1/v1"],
    ["proxy", "--upstream", "http://x", "--port", "99999"],
    ["proxy", "--upstream", "http://x", "--settle-ms", "-1"],
    ["proxy", "--colour"],
  ]) {
    const run = await runConformanceCli(args, LIMIT_MS);
    expect({ args, code: run.code }).toEqual({ args, code: 2 });
    expect(run.stderr).toMatch(/agent-conformance proxy: /);
  }
}, 90_000);
