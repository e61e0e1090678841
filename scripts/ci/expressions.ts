/**
 * GitHub's `${{ expression }}` substitution, for the few expressions the snippets and the
 * action use: `resolve` gives each one's value, or throws for one the emulation does not know,
 * so a snippet cannot silently depend on something the test never evaluated.
 */
export function substitute(text: string, resolve: (expression: string) => string): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expression: string) => resolve(expression));
}
