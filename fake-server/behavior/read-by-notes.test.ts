/**
 * behavior.ts says beside each field where it is read ("read by `sendResult`
 * (routes/create-response.ts)"). Each note is held to the code as TypeScript's references find
 * it: every function it names reads the field, every file it names holds such a function, and
 * nothing else outside the tests reads it.
 */
import { relative } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  isBindingElement,
  isClassDeclaration,
  isElementAccessExpression,
  isFunctionDeclaration,
  isIdentifier,
  isInterfaceDeclaration,
  isMethodDeclaration,
  isPropertyAccessExpression,
  isPropertyAssignment,
  isPropertyDeclaration,
  isPropertySignatureDeclaration,
  isVariableDeclaration,
  type Node,
} from "typescript/unstable/ast";
import { openProject, ROOT, type SourceProject } from "../../test-support/typescript-project.ts";

const BEHAVIOR = "fake-server/behavior/behavior.ts";

let source: SourceProject;
beforeAll(() => {
  source = openProject();
});
afterAll(() => source?.close());

interface Read {
  readonly file: string;
  /** The names of the declarations around the read, outermost first: ["AS_JSON", "fresh", "pausing"]. */
  readonly within: readonly string[];
}

/** The name a declaration gives the code inside it, if it is one that has a name. */
function declaredName(node: Node): string | undefined {
  if (isFunctionDeclaration(node) || isClassDeclaration(node)) return node.name?.text;
  if (
    isVariableDeclaration(node) ||
    isMethodDeclaration(node) ||
    isPropertyAssignment(node) ||
    isPropertyDeclaration(node)
  ) {
    return isIdentifier(node.name) ? node.name.text : undefined;
  }
  return undefined;
}

/** Whether a reference to a field reads it: `x.field`, `const { field } = x` or `x["field"]`, not a key of an object literal or a type. */
function isRead(reference: Node): boolean {
  const parent = reference.parent;
  if (isPropertyAccessExpression(parent)) return parent.name.pos === reference.pos;
  return isBindingElement(parent) || isElementAccessExpression(parent);
}

/** Where the code outside the tests and behavior.ts itself reads the field declared by `name`. */
function readsOf(name: Node): Read[] {
  const reads: Read[] = [];
  for (const entry of source.project.checker.getReferencedSymbolsForNode(name, name.getStart())) {
    for (const handle of entry.references) {
      const file = relative(ROOT, handle.path);
      if (file === BEHAVIOR || file.endsWith(".test.ts") || file.split("/").includes("test-support")) continue;
      const reference = handle.resolve(source.project);
      if (reference === undefined || !isRead(reference)) continue;
      const within: string[] = [];
      for (let node: Node | undefined = reference.parent; node !== undefined; node = node.parent) {
        const declared = declaredName(node);
        if (declared !== undefined) within.unshift(declared);
      }
      reads.push({ file, within });
    }
  }
  return reads;
}

/** Whether `name` ("sendResult", "AS_EVENTS.refused") is one of the declarations around `read`. */
function insideOf(read: Read, name: string): boolean {
  const parts = name.split(".");
  return read.within.some((_, start) => parts.every((part, i) => read.within[start + i] === part));
}

/** The note's clause from "read by" (or "read only by", "read in FILE by") to its end. */
const clauseOf = (note: string) => /\bread (?:only )?(?:in \S+ )?by .*$/is.exec(note)?.[0];

test("every field of Behavior and Breakage is read only where the note beside it says", () => {
  const file = source.sourceFile(BEHAVIOR);
  const problems = new Set<string>();
  let checked = 0;
  for (const statement of file.statements) {
    if (!isInterfaceDeclaration(statement) || !["Behavior", "Breakage"].includes(statement.name.text)) continue;
    for (const member of statement.members) {
      if (!isPropertySignatureDeclaration(member) || !isIdentifier(member.name)) continue;
      const field = member.name.text;
      // The breakage switches carry their own notes.
      if (field === "broken") continue;
      checked++;
      const note =
        /\/\*\*([\s\S]*?)\*\//
          .exec(file.text.slice(member.pos, member.getStart()))?.[1]
          ?.replace(/\s*\n\s*\*?\s*/g, " ") ?? "";
      const clause = clauseOf(note);
      if (clause === undefined) {
        problems.add(`${field}: its note says nowhere where it is read`);
        continue;
      }
      const readers = [...clause.matchAll(/`([A-Za-z_$][\w$]*(?:\.[\w$]+)*)`/g)].map(([, name = ""]) => name);
      const files = [...clause.matchAll(/\b((?:[a-z-]+\/)*[a-z-]+\.ts)\b/g)].map(
        ([, path = ""]) => `fake-server/${path}`,
      );
      const reads = readsOf(member.name);
      for (const reader of readers) {
        if (!reads.some((read) => insideOf(read, reader)))
          problems.add(`${field}: the note names \`${reader}\`, which does not read it`);
      }
      for (const path of files) {
        if (!reads.some((read) => read.file === path && readers.some((reader) => insideOf(read, reader)))) {
          problems.add(`${field}: the note names ${path}, where none of the functions it names reads it`);
        }
      }
      for (const read of reads) {
        if (!readers.some((reader) => insideOf(read, reader)))
          problems.add(`${field}: read in ${read.file} by \`${read.within.join(".")}\`, which the note does not name`);
      }
    }
  }
  expect(checked).toBeGreaterThan(60);
  expect([...problems]).toEqual([]);
});
