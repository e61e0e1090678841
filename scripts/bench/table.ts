/** The console table: one row per figure, with its target and whether it was met. */

import { meets, type Section } from "./figures.ts";

function formatValue(value: number, unit: string): string {
  const text = Number.isInteger(value) ? value.toLocaleString("en-US") : String(value);
  return unit === "ratio" ? text : `${text} ${unit}`;
}

export function renderTable(sections: readonly Section[]): string {
  const rows: string[][] = [["section", "metric", "value", "target", "verdict"]];
  for (const section of sections) {
    for (const figure of section.figures) {
      const verdict = meets(figure);
      rows.push([
        section.name,
        figure.metric,
        formatValue(figure.value, figure.unit),
        figure.target ? `${figure.target.op} ${figure.target.value}` : "",
        verdict === undefined ? "" : verdict ? "met" : "MISSED",
      ]);
    }
  }
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  const line = (row: string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  const [header, ...body] = rows;
  return [line(header ?? []), widths.map((width) => "-".repeat(width)).join("  "), ...body.map(line)].join("\n");
}
