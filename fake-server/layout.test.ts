import { readdirSync, readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { STAGES } from "./app.ts";

// README.md's "Layout" table and app.ts's STAGES name the pipeline's stages; they must agree.
const readme = readFileSync(new URL("README.md", import.meta.url), "utf8");
const layout = readme.slice(readme.indexOf("## Layout"));
const rows = [...layout.matchAll(/^\| `([a-z-]+\/)`(?:, `[^`]+`)* \| ([^|]+) \|/gm)].map(
  ([, folder = "", stage = ""]) => ({ folder, stage: stage.trim() }),
);
const folders = (row: { folder: string }) => row.folder;

test("every folder of the fake is one row of the Layout table, and every row a folder", () => {
  const onDisk = readdirSync(new URL(".", import.meta.url), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${entry.name}/`);
  const listed = [...layout.matchAll(/^\| ((?:`[a-z-]+\/`(?:, )?)+) \|/gm)].flatMap(([, cell = ""]) =>
    [...cell.matchAll(/`([a-z-]+\/)`/g)].map(([, name]) => name),
  );
  expect(listed.sort()).toEqual(onDisk.sort());
});

test("the Layout table numbers the stages as STAGES does, each in its folders", () => {
  const fromReadme = rows.flatMap(({ folder, stage }) =>
    [...stage.matchAll(/(\d+)\. ([^;]+)/g)].map(([, number = "", name = ""]) => ({
      stage: Number(number),
      name: name.trim(),
      folder,
    })),
  );
  expect(fromReadme.length).toBeGreaterThan(0);
  for (const { stage, name, folder } of fromReadme) {
    const known = STAGES.find((entry) => entry.stage === stage);
    expect(known, `stage ${stage} of ${folder}`).toBeDefined();
    // A folder may hold one part of a stage ("7. faults" of "7. headers, faults, …").
    expect([known?.name, ...(known?.name.split(", ") ?? [])], `${folder}: ${stage}. ${name}`).toContain(name);
    expect(known?.folders, `${folder}: ${stage}. ${name}`).toContain(folder);
  }
  const pairs = (list: readonly { stage: number; folder: string }[]) =>
    list.map(({ stage, folder }) => `${stage} ${folder}`).sort();
  expect(pairs(fromReadme)).toEqual(
    pairs(STAGES.flatMap(({ stage, folders: inStage }) => inStage.map((folder) => ({ stage, folder })))),
  );
  expect(rows.map(folders)).toContain("lifecycle/");
});

test("the stages come in order: the answer is chosen before the pause", () => {
  expect(STAGES.map(({ stage }) => stage)).toEqual(STAGES.map((_, index) => index));
  const at = (name: string) => STAGES.findIndex((entry) => entry.name === name);
  expect(at("answer")).toBeLessThan(at("pause"));
});
