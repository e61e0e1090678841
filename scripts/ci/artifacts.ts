/**
 * What a CI runner carries from one job to another, for the snippets' emulation: the files an
 * upload (GitHub) or a job's `artifacts:` (GitLab) names, kept in a store and copied into a later
 * job's workspace, since each job runs in a workspace of its own as on a real runner.
 */
import { existsSync } from "node:fs";
import { cp, mkdir, readdir, stat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";

/** `*` and `?` within one path segment, as the snippets use them (`shard-*`, `conformance-*`). */
function segmentPattern(segment: string): RegExp {
  if (segment === "**") throw new Error("a ** path in a CI snippet, which the emulation does not match");
  const body = segment
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replaceAll("*", "[^/]*")
    .replaceAll("?", "[^/]");
  return new RegExp(`^${body}$`);
}

/** The paths under `root` that `pattern` names (relative, existing), e.g. "shard-*\/" or "reports/junit.xml". */
export async function matchPaths(root: string, pattern: string): Promise<string[]> {
  const segments = pattern
    .replace(/\/+$/, "")
    .split("/")
    .filter((s) => s !== "" && s !== ".");
  let found = [""];
  for (const segment of segments) {
    const next: string[] = [];
    for (const dir of found) {
      if (!/[*?]/.test(segment)) {
        if (existsSync(join(root, dir, segment))) next.push(join(dir, segment));
        continue;
      }
      const full = join(root, dir);
      if (!existsSync(full) || !(await stat(full)).isDirectory()) continue;
      const re = segmentPattern(segment);
      for (const name of (await readdir(full)).sort()) if (re.test(name)) next.push(join(dir, name));
    }
    found = next;
  }
  return found.filter((path) => path !== "");
}

/** Artifacts by name, each a folder in the store. */
export class ArtifactStore {
  readonly #root: string;
  readonly #names: string[] = [];

  constructor(root: string) {
    this.#root = root;
  }

  get names(): readonly string[] {
    return this.#names;
  }

  /**
   * Keeps what `patterns` name in `workspace` as artifact `name`: a single folder by its contents
   * (GitHub's upload of a folder), anything else by its path. Returns the patterns that named nothing.
   */
  async save(name: string, workspace: string, patterns: readonly string[], byContents: boolean): Promise<string[]> {
    const into = join(this.#root, name);
    await mkdir(into, { recursive: true });
    if (!this.#names.includes(name)) this.#names.push(name);
    const missing: string[] = [];
    for (const pattern of patterns) {
      // An absolute path (a step's output, say) is matched from the root, not the workspace.
      const base = isAbsolute(pattern) ? "/" : workspace;
      const paths = await matchPaths(base, pattern);
      if (paths.length === 0) missing.push(pattern);
      const [only] = paths;
      if (byContents && paths.length === 1 && only !== undefined && (await stat(join(base, only))).isDirectory()) {
        await cp(join(base, only), into, { recursive: true });
        continue;
      }
      for (const path of paths) await cp(join(base, path), join(into, path), { recursive: true });
    }
    return missing;
  }

  /** Copies artifact `name` into `folder`. */
  async restore(name: string, folder: string): Promise<void> {
    if (!this.#names.includes(name)) throw new Error(`no artifact named ${name} was uploaded`);
    await mkdir(folder, { recursive: true });
    await cp(join(this.#root, name), folder, { recursive: true });
  }
}
