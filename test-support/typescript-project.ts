/**
 * The repository's TypeScript as the compiler reads it (tsconfig.json, through TypeScript's own
 * API, which runs the compiler in a child process), for the tests that hold the code to what its
 * documents promise: which file imports which, and which code reads a given field.
 */
import { dirname, relative, resolve } from "node:path";
import { isStringLiteral, type SourceFile } from "typescript/unstable/ast";
import { API, type Project } from "typescript/unstable/sync";

export const ROOT = resolve(import.meta.dirname, "..");

export interface SourceProject {
  readonly project: Project;
  /** The repository's files in the program (dependencies and the standard library left out), relative to the root. */
  readonly files: readonly string[];
  /** `file`'s parsed source (a path relative to the root). */
  sourceFile(file: string): SourceFile;
  /**
   * The repository files `file` imports, relative to the root: static and type-only imports,
   * re-exports and literal dynamic imports alike (packages left out).
   */
  importsOf(file: string): string[];
  /** Stops the compiler's process. */
  close(): void;
}

export function openProject(): SourceProject {
  const api = new API({ cwd: ROOT });
  const config = resolve(ROOT, "tsconfig.json");
  const snapshot = api.updateSnapshot({ openProjects: [config] });
  const project = snapshot.getProject(config);
  if (project === undefined) {
    api.close();
    throw new Error(`TypeScript opened no project for ${config}`);
  }
  const files = project.program
    .getSourceFileNames()
    .map((name) => relative(ROOT, name))
    .filter((name) => !name.startsWith("..") && !name.split("/").includes("node_modules"));
  const sourceFile = (file: string): SourceFile => {
    const parsed = project.program.getSourceFile(resolve(ROOT, file));
    if (parsed === undefined) throw new Error(`${file} is not in the program of tsconfig.json`);
    return parsed;
  };
  const importsOf = (file: string): string[] =>
    sourceFile(file)
      .imports.filter(isStringLiteral)
      .map((specifier) => specifier.text)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => relative(ROOT, resolve(ROOT, dirname(file), specifier)));
  return { project, files, sourceFile, importsOf, close: () => api.close() };
}
