/**
 * What every benchmark section returns: named figures, each with its unit and, where the
 * brief sets one, a target. Ratios are measured side by side in one run; absolute times
 * are printed for context only, never judged.
 */

export interface Target {
  readonly op: "<=" | ">=";
  readonly value: number;
}

export interface Figure {
  readonly metric: string;
  readonly value: number;
  readonly unit: string;
  readonly target?: Target;
}

export interface Section {
  readonly name: string;
  readonly title: string;
  readonly figures: Figure[];
  /** Raw inputs and intermediate numbers, kept in bench.json for whoever checks the figures. */
  readonly details: Record<string, unknown>;
}

export function meets(figure: Figure): boolean | undefined {
  if (!figure.target) return undefined;
  return figure.target.op === "<=" ? figure.value <= figure.target.value : figure.value >= figure.target.value;
}

export const atMost = (value: number): Target => ({ op: "<=", value });
export const atLeast = (value: number): Target => ({ op: ">=", value });
