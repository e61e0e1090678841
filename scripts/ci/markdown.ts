/** A fenced code block of a markdown file, with the line it starts on (for failure messages). */
export interface FencedBlock {
  readonly language: string;
  readonly text: string;
  readonly line: number;
}

/** Every ``` block whose info string starts with `language`, in order. */
export function fencedBlocks(markdown: string, language: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)/.exec(lines[i] ?? "");
    if (open === null) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith("```"));
    if (end === -1) break;
    if (open[1] === language) blocks.push({ language, text: lines.slice(i + 1, end).join("\n"), line: i + 1 });
    i = end;
  }
  return blocks;
}
