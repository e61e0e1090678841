/**
 * Markup that is already safe to place in the page. Everything else that reaches the
 * `html` template is escaped, so report data (messages, bodies, headers, URLs) can never
 * become markup, whoever produced it.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ENTITIES[ch] ?? ch);
}

/** Interpolated values: SafeHtml as is, arrays joined, null/undefined/false as nothing, anything else escaped text. */
type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

/** Tagged template: the literal parts are trusted markup, every interpolation is escaped. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? "";
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? "");
  });
  return new SafeHtml(out);
}

/** Catalog text marks code with `backticks`; show those spans as <code>, everything escaped. */
export function withInlineCode(text: string): SafeHtml {
  const parts = text.split("`");
  // An unpaired backtick leaves an odd last part: keep it as plain text with its backtick.
  const unpaired = parts.length % 2 === 0 ? `\`${parts.pop() ?? ""}` : "";
  return html`${parts.map((part, i) => (i % 2 ? html`<code>${part}</code>` : part))}${unpaired}`;
}
