import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ArtifactStore, matchPaths } from "./artifacts.ts";
import { tempDir } from "../../suite/test-support/runner-fixtures.ts";

async function files(root: string, paths: string[]): Promise<void> {
  for (const path of paths) {
    await mkdir(join(root, path, ".."), { recursive: true });
    await writeFile(join(root, path), path);
  }
}

test("patterns match within a segment, folders and files alike", async () => {
  const root = await tempDir("artifacts-");
  await files(root, ["shard-1/conformance.json", "shard-2/conformance.json", "reports/junit.xml", "other/x"]);
  expect(await matchPaths(root, "shard-*/")).toEqual(["shard-1", "shard-2"]);
  expect(await matchPaths(root, "reports/junit.xml")).toEqual(["reports/junit.xml"]);
  expect(await matchPaths(root, "missing/")).toEqual([]);
});

test("a folder uploaded by its contents comes back where a download puts it; paths come back where they were", async () => {
  const root = await tempDir("artifacts-");
  const workspace = join(root, "job-1");
  await files(workspace, ["shard-1/conformance.json", "shard-2/conformance.json"]);
  const store = new ArtifactStore(join(root, "store"));
  expect(await store.save("one", workspace, ["shard-1/"], true)).toEqual([]);
  expect(await store.save("all", workspace, ["shard-*/", "nothing/"], false)).toEqual(["nothing/"]);
  // An absolute path (a step's output) is taken as it is.
  expect(await store.save("absolute", workspace, [join(workspace, "shard-2")], true)).toEqual([]);
  const later = join(root, "job-2");
  await store.restore("one", join(later, "shards", "one"));
  await store.restore("all", later);
  await store.restore("absolute", join(later, "abs"));
  expect(await readFile(join(later, "shards/one/conformance.json"), "utf8")).toBe("shard-1/conformance.json");
  expect(existsSync(join(later, "shard-2/conformance.json"))).toBe(true);
  expect(existsSync(join(later, "abs/conformance.json"))).toBe(true);
  await expect(store.restore("never", later)).rejects.toThrow("no artifact named never");
});
