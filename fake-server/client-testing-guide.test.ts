import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";

// CLIENT-TESTING.md's setup, as a reader follows it in a new project (`npm init -y`).
const guide = readFileSync(new URL("CLIENT-TESTING.md", import.meta.url), "utf8");
const setup = guide.slice(guide.indexOf("## Start the fake in your tests"));
const commands = (/```sh\n([\s\S]*?)```/.exec(setup)?.[1] ?? "").split("\n").filter((line) => line.trim() !== "");
const installs = commands.filter((line) => line.startsWith("npm install"));

const project = mkdtempSync(join(tmpdir(), "client-testing-guide-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

const npm = (args: readonly string[]) => {
  const run = spawnSync("npm", args, {
    cwd: project,
    encoding: "utf8",
    timeout: 60_000,
    shell: process.platform === "win32",
  });
  expect(run.status, `npm ${args.join(" ")}: ${run.stderr}`).toBe(0);
};

test("the install line brings the test runner, TypeScript, undici and the Node types", () => {
  expect(installs).toHaveLength(1);
  const packages = (installs[0] ?? "")
    .split(/\s+/)
    .slice(2)
    .filter((word) => !word.startsWith("-"));
  expect(packages).toEqual(expect.arrayContaining(["vitest@4", "undici@7", "typescript", "@types/node"]));
});

test("the other setup lines turn the project npm init made into ES modules", () => {
  npm(["init", "-y"]);
  // Everything but the install, which needs the registry; each line is a plain npm command.
  for (const line of commands.filter((command) => !installs.includes(command))) {
    const [tool, ...args] = line.split(/\s+/);
    expect(tool).toBe("npm");
    npm(args);
  }
  expect((JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as { type?: string }).type).toBe("module");
}, 120_000);

test("the tsconfig the guide asks for names the Node types", () => {
  expect(guide).toContain('"types": ["node"]');
});
