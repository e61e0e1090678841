/**
 * Keys never leave the harness: every transcript, error message and report line goes
 * through a Redactor that knows the run's secrets.
 */

const MARK = "…(redacted)";

/** "sk-fake-a" → "sk-f…(redacted)"; short keys show nothing, since 4 characters of them would be too much. */
export function redactKey(key: string): string {
  return key.length >= 8 ? `${key.slice(0, 4)}${MARK}` : MARK;
}

/** An Authorization header value with its credential redacted, keeping the scheme for the reader. */
export function redactAuthorization(value: string): string {
  const space = value.indexOf(" ");
  if (space === -1) return redactKey(value);
  const credential = value.slice(space + 1).trim();
  return `${value.slice(0, space)} ${credential === "" ? "" : redactKey(credential)}`;
}

export class Redactor {
  readonly #secrets: string[];

  constructor(secrets: readonly (string | null | undefined)[]) {
    // Longest first, so a key that contains another key is replaced whole.
    this.#secrets = [...new Set(secrets.filter((s): s is string => typeof s === "string" && s.length > 0))].sort(
      (a, b) => b.length - a.length,
    );
  }

  /** Replaces every occurrence of a known secret, wherever the target echoed it. */
  scrub(text: string): string {
    let out = text;
    for (const secret of this.#secrets) {
      if (out.includes(secret)) out = out.split(secret).join(redactKey(secret));
    }
    return out;
  }

  /** Header map with Authorization redacted and every value scrubbed. */
  headers(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = Object.create(null);
    for (const [name, value] of Object.entries(headers)) {
      out[name] =
        name === "authorization" || name === "proxy-authorization"
          ? this.scrub(redactAuthorization(value))
          : this.scrub(value);
    }
    return out;
  }
}

/** A URL for humans: user info removed (it may carry credentials). */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return "(invalid URL)";
  }
}
