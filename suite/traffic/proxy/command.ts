/**
 * agent-conformance proxy --upstream URL [--port N] [--host H] [--report-dir DIR]
 *   [--record-fixtures DIR] [--har FILE] [--strict] [--settle-ms N] [--gate service|client|both]
 * First stdout line: "listening on http://HOST:PORT"; an upstream that does not answer a first
 * probe gets a warning on stderr, and the proxy starts anyway. Each violation is one console
 * line as it happens; judging (and writing the HAR) runs in a worker thread, never on the
 * forwarding thread. SIGINT or SIGTERM, to the proxy or to the npm or npx that launched it:
 * running exchanges get 2 s to end, the rest are cut and recorded as far as they went (marked
 * incomplete), then the reports (and the fixtures and HAR when asked for) are written and the
 * exit code is the judge's.
 */
import { closeSync } from "node:fs";
import { openHarFile } from "../har-file.ts";
import { trafficExitCode, type TrafficViolation } from "../judge.ts";
import { TRAFFIC_JUDGE_FLAGS } from "../judge-flags.ts";
import {
  flagHelp,
  flagValueOf,
  parseFlags,
  stringFlag,
  switchFlag,
  textFlag,
  UnknownFlagError,
  UsageError,
  type FlagTable,
} from "../../../cli/flags.ts";
import { writeStoppedTrafficReports } from "../stopped-report.ts";
import { trafficSummaryLines, writeTrafficReports } from "../reports.ts";
import { JudgeThread } from "./judge-thread.ts";
import { watchLauncher } from "./launcher-watch.ts";
import { startProxy } from "./server.ts";
import { probeUpstream, unreachableWarning } from "./upstream-probe.ts";

const FLAGS = {
  upstream: {
    name: "upstream",
    value: "URL",
    help: "the service's base URL (with its base path, without /v1)",
    parser: textFlag(upstreamUrl),
  },
  port: {
    name: "port",
    value: "N",
    help: "port to listen on (default 0: any free port)",
    parser: textFlag((text = "0") => {
      const port = /^\d+$/.test(text) ? Number(text) : Number.NaN;
      if (!(port >= 0 && port <= 65_535))
        throw new UsageError(`--port must be a whole number from 0 to 65535, not ${text}`);
      return port;
    }),
  },
  host: {
    name: "host",
    value: "HOST",
    help: "address to listen on (default 127.0.0.1)",
    parser: stringFlag("127.0.0.1"),
  },
  reportDir: {
    name: "report-dir",
    value: "DIR",
    help: "where conformance.json, junit.xml and report.html go (default reports)",
    parser: stringFlag("reports"),
  },
  recordFixtures: {
    name: "record-fixtures",
    value: "DIR",
    help: "also write each observed conversation in the fake's fixture format",
    parser: stringFlag(),
  },
  har: {
    name: "har",
    value: "FILE",
    help: `also write the observed traffic as HAR 1.2 (keys pseudonymised),
each exchange as it finishes`,
    parser: stringFlag(),
  },
  strict: { name: "strict", help: "a broken SHOULD fails too", parser: switchFlag() },
  ...TRAFFIC_JUDGE_FLAGS,
  help: { name: "help", help: "show this help", parser: switchFlag() },
} satisfies FlagTable;

/** --upstream: an http(s) base URL, not ending in /v1 (every problem with it, each on its line). */
function upstreamUrl(text: string | undefined): URL {
  let upstream: URL;
  try {
    upstream = new URL(text ?? "");
  } catch {
    throw new UsageError(text === undefined ? "--upstream URL is required" : `--upstream is not a URL: ${text}`);
  }
  const problems: string[] = [];
  if (upstream.protocol !== "http:" && upstream.protocol !== "https:")
    problems.push(`--upstream must be an http or https URL, not ${text}`);
  if (/\/v1\/?$/.test(upstream.pathname))
    problems.push(
      `--upstream must not end in /v1: give the base URL before it (${upstream.origin}${upstream.pathname.replace(/\/v1\/?$/, "")})`,
    );
  const [first, ...more] = problems;
  if (first !== undefined) throw new UsageError(first, ...more);
  return upstream;
}

const PROXY_USAGE = `Usage: agent-conformance proxy --upstream URL [options]
       (in this repository: npm run conformance -- proxy --upstream URL [options])

Forwards every request to the service at URL and every byte back as it arrives, and judges
each exchange: the service against what traffic can show of the spec, the client against
CLIENT-1…7. Stop it with Ctrl-C or SIGTERM (to it, or to the npm or npx that started it)
to write the reports.

${flagHelp(FLAGS, { helpAt: 26 })}

Exit codes: 0 no gated MUST broken; 1 a gated MUST broken (or a SHOULD under --strict); 2 usage
error, or nothing was judged (no exchange of the spec, or the upstream never answered); 3 none
broken, but a gated verdict held back for listing lag was never decided (UNDECIDED lines). A
requirement no exchange could show is not_observed.`;

const GRACE_MS = 2_000;

/** Resolves on SIGINT, SIGTERM or the launcher's end; the handlers stay, so a second signal (Ctrl-C under npm arrives twice) cannot cut the reports short. */
function stopRequested(): Promise<void> {
  return new Promise((resolve) => {
    let unwatch = () => undefined as void;
    const stop = () => {
      unwatch();
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    unwatch = watchLauncher(stop);
  });
}

export function violationLine(v: TrafficViolation): string {
  return `VIOLATION ${v.requirement} ${v.level} "${v.sentence}" — ${v.exchange}: ${v.detail}`;
}

export async function runProxyCommand(
  argv: string[],
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  // Every way the proxy stops writes the three reports, a mistaken command line included.
  const refuse = async (target: string, problems: readonly string[], usage = ""): Promise<number> => {
    for (const problem of problems) process.stderr.write(`agent-conformance proxy: ${problem}\n`);
    if (usage !== "") process.stderr.write(usage);
    await writeStoppedTrafficReports(
      "proxy",
      flagValueOf(argv, "report-dir") ?? "reports",
      target,
      problems.join("; "),
      "proxy",
    );
    return 2;
  };
  let parsed;
  try {
    parsed = parseFlags(FLAGS, argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    // An unknown flag is one line naming the flag meant; other mistakes come with the usage.
    return refuse("(not set up)", [error.message], error instanceof UnknownFlagError ? "" : `${PROXY_USAGE}\n`);
  }
  if (parsed.values.help) {
    print(PROXY_USAGE);
    return 0;
  }
  if (!parsed.ok) return refuse("(not set up)", parsed.problems);
  const { values } = parsed;
  const { upstream, settleMs, gate, port } = values;
  const target = `proxy to ${upstream.origin}${upstream.pathname}`;
  let harFd: number | undefined;
  try {
    harFd = values.har === undefined ? undefined : openHarFile(values.har);
  } catch (error) {
    return refuse(target, [
      `cannot write --har ${values.har}: ${error instanceof Error ? error.message : String(error)}`,
    ]);
  }

  const judge = new JudgeThread(
    {
      target: `proxy to ${upstream.origin}${upstream.pathname}`,
      strict: values.strict,
      settleMs,
      gate,
      recordFixtures: values.recordFixtures !== undefined,
      ...(harFd === undefined ? {} : { harFd }),
    },
    (violation) => print(violationLine(violation)),
    // A judging bug must never take the traffic down with it.
    (text) => process.stderr.write(`agent-conformance proxy: ${text}\n`),
  );
  let proxy;
  try {
    proxy = await startProxy({
      upstream: upstream.href,
      host: values.host,
      port,
      onExchange: (exchange) => judge.observe(exchange),
    });
  } catch (error) {
    await judge.finish(undefined);
    if (harFd !== undefined) closeSync(harFd);
    return refuse(target, [
      `cannot listen on ${values.host}:${port}: ${error instanceof Error ? error.message : String(error)}`,
    ]);
  }
  // Listening only once the handlers are in place: whoever reads the line may signal at once.
  const stopped = stopRequested();
  print(`listening on ${proxy.url}`);
  void probeUpstream(upstream).then((why) => {
    if (why !== undefined) process.stderr.write(`agent-conformance proxy: ${unreachableWarning(upstream, why)}\n`);
  });
  await stopped;
  await proxy.close(GRACE_MS);
  // The last exchanges are handed over on the next turn of the event loop.
  await new Promise((resolve) => setImmediate(resolve));
  const reportDir = values.reportDir;
  const { report, fixturesWritten, harWritten } = await judge.finish(values.recordFixtures);
  if (harFd !== undefined) closeSync(harFd);
  await writeTrafficReports(report, reportDir);
  if (fixturesWritten !== undefined)
    print(`fixtures: ${fixturesWritten} conversation(s) written to ${values.recordFixtures}`);
  if (harWritten !== undefined) print(`HAR: ${harWritten} exchange(s) written to ${values.har}`);
  for (const line of trafficSummaryLines(report, reportDir)) print(line);
  if (report.result === "error")
    process.stderr.write(`agent-conformance proxy: ${report.diagnosis ?? "nothing was judged"}\n`);
  return trafficExitCode(report);
}
