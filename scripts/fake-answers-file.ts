import { readFileSync } from "node:fs";

/** An `--answers` file that cannot be used: one line names the file and why, without the whole usage. */
export class AnswersFileError extends Error {}

function reasonOf(error: unknown): string {
  if (error instanceof Error && "code" in error && error.code === "ENOENT") return "no such file";
  return error instanceof Error ? error.message : String(error);
}

/** The rules of `--answers FILE`; the rules themselves are checked when the fake starts. */
export function answerRulesFromFile(path: string): unknown[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new AnswersFileError(`--answers: cannot read ${path}: ${reasonOf(error)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new AnswersFileError(`--answers: ${path} is not JSON: ${reasonOf(error)}`);
  }
  if (!Array.isArray(parsed)) throw new AnswersFileError(`--answers: ${path} must hold a JSON array of answer rules`);
  return parsed;
}
