import { readFile } from "node:fs/promises";

type JsonFileLoad = { ok: true; json: unknown } | { ok: false; error: string };

/**
 * A JSON file a flag names (--baseline, --rerun-failed): its parsed contents, or one message
 * that starts with the flag and the file as the user gave it (`file`; `path` is resolved).
 */
export async function readJsonFile(flag: string, file: string, path: string): Promise<JsonFileLoad> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    return { ok: false, error: `${flag} ${file}: cannot be read: ${reason}` };
  }
  try {
    return { ok: true, json: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: `${flag} ${file}: not JSON: ${(error as Error).message}` };
  }
}
