/**
 * The package as a user gets it: built and packed from a private copy of the sources, installed
 * from the tarball into an empty project (dependencies come from the registry), then used the
 * way USING.md says: `npx agent-service-fake`, `npx agent-conformance`, imports from ESM and
 * from TypeScript. Everything runs on plain node: the consumer has neither tsx nor TypeScript.
 */

import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ResponseResult } from "../../schemas/index.ts";
import { createFakeServer } from "../../fake-server/index.ts";
import type { ConformanceReport } from "../../suite/report/report-types.ts";
import { CONSUMER_PACKAGE_JSON, CONSUMER_TS, consumerTsconfig, SMOKE_MJS } from "./consumer-files.ts";
// For the client-testing guide's test, at the end of this file.
import { relative } from "node:path";
import { GUIDE, guideFiles, guideTsconfig } from "./consumer-files.ts";
import { runCommand, type CommandResult } from "./command.ts";
import { expectStopped, startFake } from "./fake-launcher.ts";
import { SLOT_WAIT_MS, takeExclusiveSlot } from "../../test-support/exclusive-slot.ts";
import { stagePackage } from "./stage.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const NAME = "agent-service-conformance";
/** Build, pack and install share this; each step below has its own, smaller limit. */
const SETUP_LIMIT_MS = 90_000;
const STEP_LIMIT_MS = 60_000;
/** One run of the interaction property against a standalone fake, on a loaded machine. */
const REPLAY_LIMIT_MS = 120_000;
/** A whole run of the suite (about 10 s alone; over 60 s was seen beside the gate on 2 cores). */
const FULL_RUN_LIMIT_MS = 150_000;
/** Below the step's limit, so that a fake left running fails its test with the output. */
const FAKE_LIMIT_MS = 45_000;

let work: string | undefined;
let app = "";
let packed: string[] = [];
let publishDryRun: CommandResult | undefined;

let releaseSlot: (() => void) | undefined;

afterAll(async () => {
  releaseSlot?.();
  // npm may still be writing into the folder after a timed-out step: retry, and never fail the file for its clean-up.
  if (work !== undefined)
    await rm(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }).catch(() => {});
});

beforeAll(async () => {
  // Building and installing keep both cores busy: never beside the other file that does.
  releaseSlot = await takeExclusiveSlot();
  work = await mkdtemp(join(tmpdir(), "agent-conformance-pack-"));
  const stage = await stagePackage(ROOT, join(work, "stage"));

  // npm pack builds first (prepack), as npm publish does: one build, through the script a publisher runs.
  const pack = await runCommand("npm", ["pack", "--json", "--pack-destination", work], {
    cwd: stage,
    timeoutMs: STEP_LIMIT_MS,
  });
  expect(pack.code, pack.output).toBe(0);
  // The build ran just above: the dry run need not run it again through prepack.
  publishDryRun = await runCommand("npm", ["publish", "--dry-run", "--ignore-scripts"], {
    cwd: stage,
    timeoutMs: STEP_LIMIT_MS,
  });
  const [info] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  if (info === undefined) throw new Error(`npm pack described no tarball:\n${pack.output}`);
  packed = info.files.map((f) => f.path);

  app = join(work, "app");
  await mkdir(app);
  await writeFile(join(app, "package.json"), CONSUMER_PACKAGE_JSON);
  const install = await runCommand(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", join(work, info.filename)],
    {
      cwd: app,
      timeoutMs: STEP_LIMIT_MS,
    },
  );
  expect(install.code, install.output).toBe(0);
}, SETUP_LIMIT_MS + SLOT_WAIT_MS);

/** `npx --no -- <bin> …`: never fetches a same-named package from the registry. */
const npx = (bin: string, args: string[]) => ["--no", "--", bin, ...args];

describe("the tarball", () => {
  test("holds the built JavaScript, declarations, the built checks, both bins and the docs", async () => {
    const families = (await readdir(join(ROOT, "suite/checks"))).filter((f) => f.endsWith(".check.ts"));
    expect(families.length).toBeGreaterThan(0);
    const expected = [
      "package.json",
      "README.md",
      "LICENSE",
      "docs/USING.md",
      "fake-server/README.md",
      "openapi/openapi.json",
      "openapi/fake.json",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/schemas/index.d.ts",
      "dist/suite/runner/run.js",
      "bin/agent-conformance.js",
      "bin/agent-service-fake.js",
      "dist/scripts/conformance.js",
      "dist/scripts/fake.js",
      ...families.map((f) => `dist/suite/checks/${f.replace(/\.ts$/, ".js")}`),
    ];
    for (const path of expected) expect(packed, path).toContain(path);
  });

  test("holds nothing but what the files list names, beside what npm always adds", () => {
    const roots = new Set(packed.map((path) => path.split("/")[0]));
    expect([...roots].sort()).toEqual([
      "LICENSE",
      "README.md",
      "bin",
      "dist",
      "docs",
      "fake-server",
      "openapi",
      "package.json",
    ]);
  });

  test("npm publish --dry-run passes with no warning but the one about not being logged in", () => {
    expect(publishDryRun?.code, publishDryRun?.output).toBe(0);
    const warnings = (publishDryRun?.stderr ?? "")
      .split("\n")
      .filter((line) => /^npm warn/i.test(line) && !/logged in/.test(line));
    expect(warnings).toEqual([]);
    expect(publishDryRun?.output).toContain("+ agent-service-conformance@");
  });

  test("holds no TypeScript sources and no tests", () => {
    expect(packed.filter((p) => p.endsWith(".ts") && !p.endsWith(".d.ts"))).toEqual([]);
    expect(packed.filter((p) => /\.test\.|test-fixtures|test-support/.test(p))).toEqual([]);
  });
});

describe("installed into an empty project", () => {
  test("brings vitest and the other runtime needs as dependencies, and neither tsx nor TypeScript", async () => {
    const manifest = JSON.parse(await readFile(join(app, "node_modules", NAME, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies).sort()).toEqual([
      "eventsource-parser",
      "fast-check",
      "polka",
      "undici",
      "vitest",
      "zod",
    ]);
    expect(existsSync(join(app, "node_modules/vitest/package.json"))).toBe(true);
    expect(existsSync(join(app, "node_modules/tsx"))).toBe(false);
    expect(existsSync(join(app, "node_modules/typescript"))).toBe(false);
    for (const bin of ["agent-conformance", "agent-service-fake"]) {
      const text = await readFile(join(app, "node_modules/.bin", bin), "utf8");
      expect(text.startsWith("#!/usr/bin/env node\n"), bin).toBe(true);
    }
  });

  test("its manifest is publishable: not private, licensed, with a repository, keywords and the engines its dependencies need", async () => {
    const manifest = JSON.parse(await readFile(join(app, "node_modules", NAME, "package.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(manifest["private"]).toBeUndefined();
    expect(manifest).toMatchObject({
      license: "MIT",
      repository: { type: "git", url: expect.stringMatching(/^git\+https:\/\//) },
    });
    expect((manifest["keywords"] as string[]).length).toBeGreaterThan(0);
    // vite, under vitest, needs ^20.19.0 || >=22.12.0; the package asks for no less.
    const vite = JSON.parse(await readFile(join(app, "node_modules/vite/package.json"), "utf8")) as {
      engines: { node: string };
    };
    expect(manifest["engines"]).toEqual({ node: vite.engines.node });
  });

  test(
    "npx agent-service-fake --port 0 prints where it listens, serves the API, and stops with npx on SIGTERM",
    async ({ onTestFinished }) => {
      // npx runs the bin under `sh -c`, which dies of the forwarded signal without passing it on:
      // the fake sees it was orphaned and stops (scripts/fake.ts).
      const fake = await startFake(
        "npx",
        npx("agent-service-fake", ["--port", "0"]),
        { cwd: app, timeoutMs: FAKE_LIMIT_MS },
        onTestFinished,
      );
      const res = await fetch(new URL("/v1/agents/agent-a/responses", fake.url), {
        method: "POST",
        headers: {
          authorization: "Bearer sk-fake-a",
          "content-type": "application/json",
          "idempotency-key": "pack-test-1",
        },
        body: JSON.stringify({ message: "What are your opening hours?" }),
        signal: AbortSignal.timeout(STEP_LIMIT_MS),
      });
      expect(res.status).toBe(200);
      expect(ResponseResult.safeParse(await res.json()).success).toBe(true);
      process.kill(fake.launcher.pid, "SIGTERM");
      await expectStopped(fake);
    },
    STEP_LIMIT_MS,
  );

  test(
    "node_modules/.bin/agent-service-fake is the fake's own process: SIGINT stops it, exit 0",
    async ({ onTestFinished }) => {
      const fake = await startFake(
        join(app, "node_modules/.bin/agent-service-fake"),
        ["--port", "0"],
        { cwd: app, timeoutMs: FAKE_LIMIT_MS },
        onTestFinished,
      );
      process.kill(fake.launcher.pid, "SIGINT");
      const result = await expectStopped(fake);
      expect(result.code, result.output).toBe(0);
    },
    STEP_LIMIT_MS,
  );

  // The three slowest tests (two runs of the suite, the guide's vitest) run side by side: each
  // works in a folder of its own in the consumer project.
  test.concurrent(
    "npx agent-conformance runs the built checks against its embedded fake, from any directory",
    async ({ expect }) => {
      const run = await runCommand("npx", npx("agent-conformance", ["--report-dir", "out"]), {
        cwd: app,
        timeoutMs: FULL_RUN_LIMIT_MS,
        env: { CI: "true" },
      });
      expect(run.code, run.output).toBe(0);
      expect(run.stdout).toMatch(/^responses\s+\d+\/\d+/m);
      expect(run.stdout).toContain("Result: PASS");
      expect(run.output).not.toContain("sk-fake-a");
      const report = JSON.parse(await readFile(join(app, "out/conformance.json"), "utf8")) as {
        result: string;
        counts: { pass: number; fail: number };
      };
      expect(report.result).toBe("pass");
      expect(report.counts.fail).toBe(0);
      expect(report.counts.pass).toBeGreaterThan(0);
      expect(existsSync(join(app, "out/report.html"))).toBe(true);
      // The installed package is not written to (vitest keeps no results cache there).
      expect(existsSync(join(app, "node_modules", NAME, "dist/node_modules"))).toBe(false);
    },
    FULL_RUN_LIMIT_MS,
  );

  test.concurrent(
    "a counterexample's replay line names the bin, the target and its identities (keys as variables), and, run verbatim, fails the same way into reports of its own",
    async ({ expect, onTestFinished }) => {
      const service = await createFakeServer({ port: 0, mutant: "metadata-outside-fingerprint" });
      onTestFinished(() => service.close());
      const flags = [
        "--base-url",
        service.url,
        "--api-key",
        "sk-fake-a",
        "--agent-id",
        "agent-a",
        "--other-agent-id",
        "agent-b",
        "--other-api-key",
        "sk-fake-b",
      ];
      const run = await runCommand(
        "npx",
        npx("agent-conformance", [...flags, "--only", "interactions", "--report-dir", "replayed"]),
        { cwd: app, timeoutMs: REPLAY_LIMIT_MS, env: { CI: "true" } },
      );
      expect(run.code, run.output).toBe(1);
      const first = JSON.parse(await readFile(join(app, "replayed/conformance.json"), "utf8")) as ConformanceReport;
      const found = first.requirements
        .flatMap((r) => r.tests)
        .find((t) => t.counterexample !== undefined)?.counterexample;
      if (found === undefined) throw new Error(`no counterexample:\n${run.output}`);
      const dir = `replayed-replay-${found.seed}-${found.path}`;
      expect(found.replay).toBe(
        `npx agent-conformance --base-url ${service.url} --api-key "$CONFORMANCE_API_KEY" --agent-id agent-a --other-agent-id agent-b` +
          ` --other-api-key "$CONFORMANCE_OTHER_API_KEY" --profile full --only interactions --seed ${found.seed} --path ${found.path} --report-dir ${dir}` +
          "  # set CONFORMANCE_API_KEY to the key given with --api-key, CONFORMANCE_OTHER_API_KEY to the key given with --other-api-key",
      );
      // Pasted into the project's shell, with the variables the line asks for.
      const again = await runCommand("sh", ["-c", found.replay], {
        cwd: app,
        timeoutMs: REPLAY_LIMIT_MS,
        env: { CI: "true", CONFORMANCE_API_KEY: "sk-fake-a", CONFORMANCE_OTHER_API_KEY: "sk-fake-b" },
      });
      expect(again.code, again.output).toBe(1);
      const second = JSON.parse(await readFile(join(app, dir, "conformance.json"), "utf8")) as ConformanceReport;
      expect(second.target).toBe(first.target);
      expect(second.requirements.filter((r) => r.status === "fail").map((r) => r.id)).toEqual(
        first.requirements.filter((r) => r.status === "fail").map((r) => r.id),
      );
      expect(
        second.requirements.flatMap((r) => r.tests).find((t) => t.counterexample !== undefined)?.counterexample
          ?.requirement,
      ).toBe(found.requirement);
    },
    2 * REPLAY_LIMIT_MS + 10_000,
  );

  // The client-testing guide, run as printed: the ts blocks of the installed package's copy become
  // the files they name in a folder of the consumer project, type-check with the options the guide
  // asks for, and its test files pass under the consumer's own vitest.
  test.concurrent(
    "the client-testing guide: its TypeScript blocks type-check and its tests pass against the installed package",
    async ({ expect }) => {
      const guide = join(app, "guide");
      const files = guideFiles(await readFile(join(app, "node_modules", NAME, GUIDE), "utf8"));
      const tests = files
        .map((file) => file.path)
        .filter((path) => path.endsWith(".test.ts"))
        .sort();
      expect(tests.length).toBeGreaterThan(0);
      for (const file of files) {
        await mkdir(join(guide, file.path, ".."), { recursive: true });
        await writeFile(join(guide, file.path), file.text);
      }
      await writeFile(join(guide, "tsconfig.json"), guideTsconfig(join(ROOT, "node_modules/@types")));
      const tsc = await runCommand(
        process.execPath,
        [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"],
        { cwd: guide, timeoutMs: STEP_LIMIT_MS },
      );
      expect(tsc.code, tsc.output).toBe(0);

      const args = ["run", "--reporter=default", "--reporter=json", "--outputFile.json=results.json"];
      const vitest = await runCommand("npx", npx("vitest", args), { cwd: guide, timeoutMs: STEP_LIMIT_MS });
      expect(vitest.code, vitest.output).toBe(0);
      const results = JSON.parse(await readFile(join(guide, "results.json"), "utf8")) as {
        numPassedTests: number;
        testResults: { name: string; status: string }[];
      };
      expect(results.testResults.map((file) => relative(guide, file.name)).sort(), vitest.output).toEqual(tests);
      expect(results.testResults.map((file) => file.status)).toEqual(tests.map(() => "passed"));
      expect(results.numPassedTests).toBeGreaterThanOrEqual(tests.length);
    },
    2 * STEP_LIMIT_MS,
  );

  test(
    "its exports work from an ESM script: schemas parse, the fake starts, the client talks to it",
    async () => {
      await writeFile(join(app, "smoke.mjs"), SMOKE_MJS);
      const run = await runCommand(process.execPath, ["smoke.mjs"], { cwd: app, timeoutMs: STEP_LIMIT_MS });
      expect(run.code, run.output).toBe(0);
      const printed = JSON.parse(run.stdout.trim()) as { ok: boolean; requirements: number; openapi: string };
      expect(printed).toMatchObject({ ok: true, openapi: expect.stringMatching(/^3\.1/) });
      expect(printed.requirements).toBeGreaterThan(0);
    },
    STEP_LIMIT_MS,
  );

  test(
    "its declarations type-check a TypeScript consumer, and still reject wrong types",
    async () => {
      await writeFile(join(app, "consumer.ts"), CONSUMER_TS);
      await writeFile(join(app, "tsconfig.json"), consumerTsconfig(join(ROOT, "node_modules/@types")));
      const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
      const run = await runCommand(process.execPath, [tsc, "-p", "tsconfig.json"], {
        cwd: app,
        timeoutMs: STEP_LIMIT_MS,
      });
      expect(run.code, run.output).toBe(0);
    },
    STEP_LIMIT_MS,
  );
});
