/**
 * A private copy of the package's sources for the package test to build and pack, so that the
 * test never writes dist/ in the checkout (where another run may be reading or building it).
 * node_modules is linked, not copied: the build needs the compiler and the declarations only.
 */

import { cp, mkdir, symlink } from "node:fs/promises";
import { basename, join } from "node:path";

/** Never part of a build: installed packages, outputs, history, reports, earlier tarballs. */
const SKIPPED = new Set(["node_modules", "dist", ".git", "reports", ".vitest-reports"]);

export async function stagePackage(root: string, stage: string): Promise<string> {
  await mkdir(stage, { recursive: true });
  await cp(root, stage, {
    recursive: true,
    filter: (source) => source === root || (!SKIPPED.has(basename(source)) && !source.endsWith(".tgz")),
  });
  await symlink(join(root, "node_modules"), join(stage, "node_modules"), "dir");
  return stage;
}
