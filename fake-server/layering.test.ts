/**
 * The layers README.md's "Layout" promises, read from the imports as TypeScript parses them:
 * only the entry points at the top, no file or folder of the fake importing one that imports it,
 * the folders the table marks "tests only" used by tests alone, and suite/ reaching into the fake
 * only where SANCTIONED says why.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, test } from "vitest";
import { openProject, type SourceProject } from "../test-support/typescript-project.ts";

const readme = readFileSync(new URL("README.md", import.meta.url), "utf8");
const layout = readme.slice(readme.indexOf("## Layout"));

/** The files "On top are only the entry points: …" names, up to the next sentence about imports. */
const ENTRY_POINTS = [
  ...layout
    .slice(layout.indexOf("On top are only the entry points"), layout.indexOf("The imports form layers"))
    .matchAll(/`([a-z-]+\.ts)`/g),
].map(([, name = ""]) => name);
/** The folders of the rows whose stage is "tests only". */
const TESTS_ONLY = [...layout.matchAll(/^\| ((?:`[a-z-]+\/`(?:, )?)+) \| tests only \|/gm)].flatMap(([, cell = ""]) =>
  [...cell.matchAll(/`([a-z-]+\/)`/g)].map(([, folder = ""]) => folder),
);

/**
 * The suite's shipped code that imports the fake, file by file: nothing else of suite/ may
 * (its tests may: they prove the suite against the fake). Each entry says why it needs the fake.
 */
const SANCTIONED: readonly { from: string; to: string; why: string }[] = [
  {
    from: "suite/runner/embedded-fake.ts",
    to: "fake-server/index.ts",
    why: "without --base-url the runner starts the reference fake in-process",
  },
  {
    from: "suite/runner/run.ts",
    to: "fake-server/access/default-identities.ts",
    why: "a run against the embedded fake uses the identities its default keys grant",
  },
  {
    from: "suite/proof/targets.ts",
    to: "fake-server/variants/mutants.ts",
    why: "the proof runs the suite against every mutant of the fake",
  },
  {
    from: "suite/proof/targets.ts",
    to: "fake-server/variants/variants.ts",
    why: "and against every conforming variant",
  },
  {
    from: "suite/interactions/against-fake.ts",
    to: "fake-server/index.ts",
    why: "the interaction property against a fake it starts (npm run interactions, the proof)",
  },
  {
    from: "suite/interactions/against-fake.ts",
    to: "fake-server/access/default-identities.ts",
    why: "with the identities of the fake's default keys",
  },
  {
    from: "suite/traffic/client-rules.ts",
    to: "fake-server/client-rules/observer.ts",
    why: "traffic is judged by the fake's own client-rule observer: one set of client rules",
  },
  {
    from: "suite/traffic/client-rules.ts",
    to: "fake-server/idempotency/fingerprint.ts",
    why: "the observer compares payloads by the fingerprint the fake's records keep",
  },
  {
    from: "suite/traffic/proof/judge-through-proxy.ts",
    to: "fake-server/index.ts",
    why: "the traffic judge's proof puts a fake, conforming or broken, behind the proxy",
  },
];

let source: SourceProject;
beforeAll(() => {
  source = openProject();
});
afterAll(() => source?.close());

const isTest = (file: string) => file.endsWith(".test.ts");
const inFake = (file: string) => file.startsWith("fake-server/");
/** A file of the fake as the layout places it: its folder ("commit/"), or its name at the top ("app.ts"). */
const placeOf = (file: string) => {
  const [, first = "", second] = file.split("/");
  return second === undefined ? first : `${first}/`;
};

/** Each import of the fake's code (tests left out: nothing imports a test) inside the fake. */
function fakeImports(): { from: string; to: string }[] {
  return source.files
    .filter((file) => inFake(file) && !isTest(file))
    .flatMap((from) =>
      source
        .importsOf(from)
        .filter(inFake)
        .map((to) => ({ from, to })),
    );
}

/** The groups of nodes that reach each other (strongly connected, more than one node). */
function circles(edges: readonly { from: string; to: string }[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (stack.includes(target)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = member === node ? undefined : stack.pop())
      group.push(member);
    if (group.length > 1) found.push(group.sort());
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** A circle as the imports that close it, for the failure message. */
const importsWithin = (group: readonly string[], edges: readonly { from: string; to: string; via?: string }[]) =>
  edges
    .filter(({ from, to }) => group.includes(from) && group.includes(to))
    .map(({ from, to, via }) => `${from} -> ${to}${via === undefined ? "" : ` (${via})`}`);

test("the Layout section names the entry points and the tests-only folders", () => {
  expect(ENTRY_POINTS).toContain("index.ts");
  expect(TESTS_ONLY).toContain("test-support/");
});

test("at the top of the fake are only the entry points the Layout section names", () => {
  const top = source.files.filter((file) => inFake(file) && !isTest(file) && !placeOf(file).endsWith("/")).map(placeOf);
  expect(top.sort()).toEqual([...ENTRY_POINTS].sort());
});

test("no file of the fake imports one that imports it back, directly or through others", () => {
  const edges = fakeImports();
  expect(edges.length).toBeGreaterThan(100);
  expect(circles(edges).map((group) => importsWithin(group, edges))).toEqual([]);
});

test("no folder of the fake imports one that imports it, directly or through others", () => {
  const edges = fakeImports()
    .map(({ from, to }) => ({ from: placeOf(from), to: placeOf(to), via: `${from} imports ${to}` }))
    .filter(({ from, to }) => from !== to && from.endsWith("/") && to.endsWith("/"));
  expect(circles(edges).map((group) => importsWithin(group, edges))).toEqual([]);
});

test("only tests use the folders the Layout table marks tests only", () => {
  const testsOnly = (file: string) => inFake(file) && TESTS_ONLY.includes(placeOf(file));
  // A test, or what tests share (any test-support/ folder, the fake's tests-only folders).
  const servesTests = (file: string) => isTest(file) || file.split("/").includes("test-support") || testsOnly(file);
  const misused = source.files
    .filter((file) => !servesTests(file))
    .flatMap((from) =>
      source
        .importsOf(from)
        .filter(testsOnly)
        .map((to) => `${from} -> ${to}`),
    );
  expect(misused).toEqual([]);
});

test("suite/ imports the fake only where SANCTIONED says why, and every entry is still needed", () => {
  const shipped = (file: string) =>
    file.startsWith("suite/") && !isTest(file) && !file.startsWith("suite/test-support/");
  const used = source.files.filter(shipped).flatMap((from) =>
    source
      .importsOf(from)
      .filter(inFake)
      .map((to) => ({ from, to })),
  );
  const key = ({ from, to }: { from: string; to: string }) => `${from} -> ${to}`;
  const sanctioned = new Set(SANCTIONED.map(key));
  expect(used.map(key).filter((edge) => !sanctioned.has(edge))).toEqual([]);
  expect([...sanctioned].filter((edge) => !used.some((u) => key(u) === edge))).toEqual([]);
  for (const { why } of SANCTIONED) expect(why.length).toBeGreaterThan(0);
});
