import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, expect, test } from "vitest";
import { renderOpenApiFiles } from "../schemas/openapi/files.ts";

const ROOT = resolve(import.meta.dirname, "..");
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/** `npm run --silent openapi -- …`, as a user types it. */
function npmRunOpenapi(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(NPM, ["run", "--silent", "openapi", "--", ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 60_000,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

test("--help prints the usage, names both documents and writes nothing", async () => {
  dir = await mkdtemp(join(tmpdir(), "openapi-help-"));
  const run = await npmRunOpenapi(["--help", "--out", dir]);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toMatch(/^Usage: npm run openapi -- \[options\]/);
  expect(run.stdout).toContain("openapi.json     the contract");
  expect(run.stdout).toContain("fake.json        the reference fake's exact shapes");
  expect(await readdir(dir)).toEqual([]);
}, 60_000);

test("an unknown flag is a usage error (exit 2) that writes nothing", async () => {
  dir = await mkdtemp(join(tmpdir(), "openapi-bad-flag-"));
  const run = await npmRunOpenapi(["--outt", dir]);
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/^openapi: .*--outt/);
  expect(await readdir(dir)).toEqual([]);
}, 60_000);

test("--out writes every generated file there", async () => {
  dir = await mkdtemp(join(tmpdir(), "openapi-out-"));
  const run = await npmRunOpenapi(["--out", dir]);
  expect(run.code, run.stderr).toBe(0);
  for (const [path, text] of renderOpenApiFiles()) expect(await readFile(join(dir, path), "utf8"), path).toBe(text);
}, 60_000);
