/**
 * action.yml, run step by step as a GitHub runner runs a composite action (action-runner.ts),
 * against the fake. The suite is the one in the service's node_modules, or what the install
 * step installs; the registry is a stand-in `npm` that records the install and leaves the
 * checkout's suite behind, so nothing is fetched.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { createFakeServer } from "../../fake-server/index.ts";
import { loadAction, parseOutputFile, runAction, type ActionRun } from "./action-runner.ts";
import { installedSuite, snippetCommands } from "./shims.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const ACTION = join(ROOT, "action.yml");
const LIMIT_MS = 60_000;
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

async function fake(options: Parameters<typeof createFakeServer>[0] = {}) {
  const server = await createFakeServer({ host: "127.0.0.1", port: 0, ...options });
  onTestFinished(() => server.close());
  return server;
}

/** A service repository; with `installed`, its node_modules holds the suite (its devDependencies). */
async function service(installed: boolean): Promise<string> {
  const base = await mkdtemp(join(tmpdir(), "ci-action-"));
  onTestFinished(() => rm(base, { recursive: true, force: true }));
  const folder = join(base, "service");
  await mkdir(folder);
  if (installed) await installedSuite(folder);
  return folder;
}

/** A PATH whose `npm` installs this checkout's suite with no registry (shims.ts), and the log of its command lines. */
async function registryStandIn(workspace: string): Promise<{ path: string; log: string }> {
  const log = join(workspace, "..", "npm.log");
  const bin = await snippetCommands(join(workspace, "..", "commands"), log);
  return { path: `${bin}${delimiter}${process.env["PATH"] ?? ""}`, log };
}

const identities = (url: string) => ({
  "base-url": url,
  "api-key": "sk-fake-a",
  "agent-id": "agent-a",
  "other-agent-id": "agent-b",
  "other-api-key": "sk-fake-b",
});
const stepOutput = (run: ActionRun) => run.steps.map((step) => step.output).join("\n");

test("its inputs, outputs and steps are what a runner needs, and no script has an input pasted into it", async () => {
  const action = await loadAction(ACTION);
  expect(Object.keys(action.inputs)).toEqual(
    expect.arrayContaining([
      "base-url",
      "api-key",
      "agent-id",
      "other-agent-id",
      "other-api-key",
      "stream-error-header",
      "profile",
      "args",
      "report-dir",
      "working-directory",
      "version",
    ]),
  );
  expect(Object.keys(action.outputs)).toEqual(expect.arrayContaining(["result", "report-dir"]));
  for (const step of action.runs.steps) expect(step.run, step.id).not.toMatch(/\$\{\{/);
});

// A whole run through the action is the README's snippet (snippets.test.ts); here, the inputs one by one.
test(
  "a conforming service: the step passes, result pass, SSE-6 judged through stream-error-header, reports where report-dir says",
  async () => {
    const server = await fake();
    const workspace = await service(true);
    const inputs = {
      ...identities(server.url),
      "stream-error-header": "X-Fake-Fault: error-after=1",
      args: "--only SSE-6",
    };
    const run = await runAction(ACTION, { with: inputs, workspace, timeoutMs: LIMIT_MS });
    expect(run.code, stepOutput(run)).toBe(0);
    expect(stepOutput(run)).toContain("Using the working directory's agent-service-conformance");
    expect(run.outputs).toEqual({
      result: "pass",
      "exit-code": "0",
      "report-dir": join(workspace, "conformance-reports"),
    });
    const report = JSON.parse(await readFile(join(workspace, "conformance-reports/conformance.json"), "utf8")) as {
      result: string;
      requirements: { id: string; status: string }[];
    };
    expect(report.result).toBe("pass");
    expect(report.requirements.find((requirement) => requirement.id === "SSE-6")?.status).toBe("pass");
  },
  LIMIT_MS,
);

test(
  "a MUST broken: the step fails with the suite's exit code, and the outputs still say so",
  async () => {
    const server = await fake({ mutant: "auth-skipped-list" });
    const workspace = await service(true);
    const run = await runAction(ACTION, {
      with: { ...identities(server.url), args: "--only 'AUTH-*'", "report-dir": "out" },
      workspace,
      timeoutMs: LIMIT_MS,
    });
    expect(run.code, stepOutput(run)).toBe(1);
    expect(run.outputs).toEqual({ result: "fail", "exit-code": "1", "report-dir": join(workspace, "out") });
    expect(existsSync(join(workspace, "out/junit.xml"))).toBe(true);
  },
  LIMIT_MS,
);

test(
  "without the package in the working directory, it installs the version it was released with",
  async () => {
    const server = await fake();
    const workspace = await service(false);
    const registry = await registryStandIn(workspace);
    const run = await runAction(ACTION, {
      with: { ...identities(server.url), args: "--only AUTH-1" },
      workspace,
      env: { PATH: registry.path },
      timeoutMs: LIMIT_MS,
    });
    expect(run.code, stepOutput(run)).toBe(0);
    const install = (await readFile(registry.log, "utf8")).trim();
    expect(install).toMatch(
      new RegExp(
        `^install --prefix \\S+/agent-service-conformance .*agent-service-conformance@${VERSION.replaceAll(".", "\\.")}$`,
      ),
    );
    expect(run.outputs["result"]).toBe("pass");
  },
  LIMIT_MS,
);

test(
  "a version given is installed even when the working directory has its own copy",
  async () => {
    const server = await fake();
    const workspace = await service(true);
    const registry = await registryStandIn(workspace);
    const run = await runAction(ACTION, {
      with: { ...identities(server.url), args: "--only AUTH-1", version: "0.0.9" },
      workspace,
      env: { PATH: registry.path },
      timeoutMs: LIMIT_MS,
    });
    expect(run.code, stepOutput(run)).toBe(0);
    expect(await readFile(registry.log, "utf8")).toMatch(/agent-service-conformance@0\.0\.9\n$/);
  },
  LIMIT_MS,
);

test.each([
  [
    "an empty base-url (an unset variable) is an error, never a run against the suite's own fake",
    { "base-url": "" },
    /BASE_URL is set but empty|base-url is empty/,
  ],
  [
    "args with an unmatched quote are an error, and the suite does not run",
    { args: "--only 'AUTH-1" },
    /args.* cannot be split into flags|args: cannot split into flags/,
  ],
  ["args that are no flag of the suite are an error", { args: "--no-such-flag" }, /no-such-flag/],
])(
  "%s",
  async (_, inputs, message) => {
    const server = await fake();
    const workspace = await service(true);
    const run = await runAction(ACTION, {
      with: { ...identities(server.url), ...inputs },
      workspace,
      timeoutMs: LIMIT_MS,
    });
    expect(run.code, stepOutput(run)).toBe(2);
    expect(run.outputs["result"]).toBe("error");
    expect(stepOutput(run)).toMatch(message);
    // The upload step after it finds the reports, with why the job stopped.
    const reportDir = join(workspace, "conformance-reports");
    expect(run.outputs["report-dir"]).toBe(reportDir);
    const report = JSON.parse(await readFile(join(reportDir, "conformance.json"), "utf8")) as {
      result: string;
      diagnosis: string;
    };
    expect(report.result).toBe("error");
    expect(report.diagnosis).toMatch(message);
    for (const file of ["junit.xml", "report.html"]) expect(existsSync(join(reportDir, file)), file).toBe(true);
    expect(await readFile(join(reportDir, "conformance.json"), "utf8")).not.toContain("sk-fake-a");
  },
  LIMIT_MS,
);

test("GITHUB_OUTPUT is read as a runner reads it, one-line and multi-line values alike", () => {
  expect(parseOutputFile("result=pass\nreport-dir=/a=b\nnotes<<EOF\none\ntwo\nEOF\n")).toEqual({
    result: "pass",
    "report-dir": "/a=b",
    notes: "one\ntwo",
  });
});
