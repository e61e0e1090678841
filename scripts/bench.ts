#!/usr/bin/env -S npx tsx
/**
 * npm run bench -- [--quick] [--only NAME]...: measures the reference fake and the suite
 * (throughput, listing cost, streams, memory, suite run), prints a table and writes
 * reports/bench.json. See PERFORMANCE.md for the figures of a full run and how to read them.
 */

import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { meets, type Section } from "./bench/figures.ts";
import { controlsSection } from "./bench/controls.ts";
import { listingSection } from "./bench/listing.ts";
import { describeMachine } from "./bench/machine.ts";
import { memorySection } from "./bench/memory.ts";
import { parseSettings, USAGE, type BenchSettings, type SectionName } from "./bench/settings.ts";
import { proxySection } from "./bench/proxy.ts";
import { startupSection } from "./bench/startup.ts";
import { streamsSection } from "./bench/streams.ts";
import { suiteSection } from "./bench/suite-run.ts";
import { renderTable } from "./bench/table.ts";
import { throughputSection } from "./bench/throughput.ts";
import { PROJECT_ROOT } from "./bench/worker.ts";

const SECTIONS: Record<SectionName, (settings: BenchSettings) => Promise<Section>> = {
  throughput: throughputSection,
  listing: listingSection,
  streams: streamsSection,
  memory: memorySection,
  suite: suiteSection,
  controls: controlsSection,
  startup: startupSection,
  proxy: proxySection,
};

async function main(): Promise<number> {
  const parsed = parseSettings(process.argv.slice(2));
  if (parsed.ok === "help") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (!parsed.ok) {
    process.stderr.write(`bench: ${parsed.error}\n${USAGE}\n`);
    return 2;
  }
  const { settings } = parsed;
  const startedAt = new Date().toISOString();
  const machine = describeMachine();
  const sections: Section[] = [];
  const failures: { section: SectionName; error: string }[] = [];
  for (const name of settings.only) {
    process.stderr.write(`bench: ${name}…\n`);
    const started = performance.now();
    try {
      sections.push(await SECTIONS[name](settings));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      failures.push({ section: name, error: message });
      process.stderr.write(`bench: ${name} could not run: ${message}\n`);
    }
    process.stderr.write(`bench: ${name} took ${Math.round((performance.now() - started) / 1000)} s\n`);
  }

  const out = resolve(PROJECT_ROOT, settings.out);
  const report = {
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`,
    quick: settings.quick,
    startedAt,
    machine,
    sections,
    failures,
  };
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(report, null, 2)}\n`);

  process.stdout.write(
    `${renderTable(sections)}\n\n${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ` +
      `load average ${machine.loadAverageAtStart} at start\nWritten: ${out}\n`,
  );
  if (failures.length > 0) return 2;
  return sections.some((section) => section.figures.some((figure) => meets(figure) === false)) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(2);
  },
);
