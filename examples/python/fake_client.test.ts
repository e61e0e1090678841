import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { BUNDLE_NAME, bundleFake } from "../../scripts/package/bundle-fake.ts";
import { cleanEnv, runCommand } from "../../scripts/package/command.ts";

const python = spawnSync("python3", ["--version"], { encoding: "utf8" });
const hasPython = python.status === 0;
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "fake-python-"));
  if (hasPython) await bundleFake(join(folder, BUNDLE_NAME));
}, 60_000);
afterAll(() => rm(folder, { recursive: true, force: true }));

test.skipIf(!hasPython)(
  "the Python example drives the single-file fake: create, stream, list, fault rule, delete",
  async () => {
    const result = await runCommand(
      "python3",
      [join(import.meta.dirname, "fake_client.py"), join(folder, BUNDLE_NAME)],
      {
        cwd: folder,
        timeoutMs: 60_000,
        env: cleanEnv(),
      },
    );
    expect(result.code, result.output).toBe(0);
    expect(result.stdout).toMatch(/^ {2}delta: /m);
    expect(result.stdout).toContain("streamed: completed");
    expect(result.stdout).toMatch(/listed: 4 messages over 4 pages/);
    expect(result.stdout).toMatch(/fault rule fault-\d+: stream cut after/);
    expect(result.stdout).toContain("deleted: 204, then 404");
    expect(result.stdout).toContain("client violations: none");
  },
  90_000,
);
