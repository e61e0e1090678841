import { describe, expect, test } from "vitest";
import {
  DEFAULTS,
  parseConfig,
  reportDirOf,
  sameIdentityErrors,
  usage,
  validateConfig,
  type ConfigResult,
  type ConformanceConfig,
} from "./config.ts";

function ok(result: ConfigResult): ConformanceConfig {
  if (!result.ok) throw new Error(`expected a valid configuration, got: ${result.errors.join("; ")}`);
  return result.config;
}

function errors(result: ConfigResult): string {
  if (result.ok) throw new Error("expected a configuration error");
  return result.errors.join("\n");
}

describe("precedence", () => {
  test("defaults apply when nothing is given", () => {
    const config = ok(parseConfig([], {}));
    expect(config.baseUrl).toBeUndefined();
    // No --max-creates: the profile's cap applies (100 for full, 25 for smoke).
    expect(config.maxCreates).toBeUndefined();
    expect(config).toMatchObject({
      profile: "full",
      maxRetries: 4,
      settleMs: 3_000,
      headers: {},
      exclude: [],
      concurrency: 4,
      requestTimeoutMs: 10_000,
      firstEventTimeoutMs: 10_000,
      idleTimeoutMs: 10_000,
      streamTimeoutMs: 30_000,
      maxResponseBytes: 1024 * 1024,
      maxStreamBytes: 4 * 1024 * 1024,
      runs: 25,
      only: [],
      strict: false,
      reportDir: DEFAULTS.reportDir,
      fakeOptions: {},
      help: false,
    });
    expect(config.seed).toBeUndefined();
  });

  test("the environment overrides defaults and a flag overrides the environment", () => {
    const env = {
      CONFORMANCE_BASE_URL: "https://env.example/api/",
      CONFORMANCE_API_KEY: "sk-env",
      CONFORMANCE_AGENT_ID: "env-agent",
      CONFORMANCE_MAX_CREATES: "40",
      CONFORMANCE_STRICT: "true",
      CONFORMANCE_ONLY: "SSE-*,IDEM-1",
    };
    const fromEnv = ok(parseConfig([], env));
    expect(fromEnv).toMatchObject({
      baseUrl: "https://env.example/api",
      apiKey: "sk-env",
      agentId: "env-agent",
      maxCreates: 40,
      strict: true,
      only: ["SSE-*", "IDEM-1"],
    });
    const fromFlags = ok(
      parseConfig(
        ["--base-url", "http://flag.example", "--max-creates", "7", "--only", "LIST-*", "--only", "DEL-1,DEL-2"],
        env,
      ),
    );
    expect(fromFlags).toMatchObject({
      baseUrl: "http://flag.example",
      apiKey: "sk-env",
      maxCreates: 7,
      only: ["LIST-*", "DEL-1", "DEL-2"],
    });
  });

  test("an empty environment variable counts as unset", () => {
    expect(ok(parseConfig(["--max-creates", "7"], { CONFORMANCE_MAX_CREATES: "" })).maxCreates).toBe(7);
    expect(ok(parseConfig([], { CONFORMANCE_MAX_CREATES: "" })).maxCreates).toBeUndefined();
  });

  test("an empty CONFORMANCE_BASE_URL (an unset CI variable) is an error naming it, not a run against the embedded fake", () => {
    expect(errors(parseConfig([], { CONFORMANCE_BASE_URL: "" }))).toContain("CONFORMANCE_BASE_URL is set but empty");
    expect(errors(parseConfig([], { CONFORMANCE_BASE_URL: "  " }))).toContain("CONFORMANCE_BASE_URL");
    expect(errors(parseConfig(["--base-url", ""], {}))).toContain("--base-url (or CONFORMANCE_BASE_URL): is empty");
    // A flag still wins over the empty variable.
    expect(
      ok(
        parseConfig(["--base-url", "http://flag.example", "--api-key", "k", "--agent-id", "a"], {
          CONFORMANCE_BASE_URL: "",
        }),
      ).baseUrl,
    ).toBe("http://flag.example");
  });

  test("every numeric flag is read", () => {
    const config = ok(
      parseConfig(
        [
          "--concurrency",
          "2",
          "--request-timeout",
          "500",
          "--first-event-timeout",
          "600",
          "--idle-timeout",
          "700",
          "--stream-timeout",
          "800",
          "--check-timeout",
          "900",
          "--max-response-bytes",
          "2048",
          "--max-stream-bytes",
          "4096",
          "--seed",
          "42",
          "--runs",
          "3",
          "--report-dir",
          "out",
          "--checks-dir",
          "elsewhere",
          "--strict",
        ],
        {},
      ),
    );
    expect(config).toMatchObject({
      concurrency: 2,
      requestTimeoutMs: 500,
      firstEventTimeoutMs: 600,
      idleTimeoutMs: 700,
      streamTimeoutMs: 800,
      checkTimeoutMs: 900,
      maxResponseBytes: 2048,
      maxStreamBytes: 4096,
      seed: 42,
      runs: 3,
      reportDir: "out",
      checksDir: "elsewhere",
      strict: true,
    });
  });

  test("fake options are NAME=VALUE with JSON values when they parse", () => {
    const config = ok(
      parseConfig(
        ["--fake-option", "seed=7", "--fake-option", "mutant=off-by-one", "--fake-option", 'keys=["t=a@web"]'],
        {},
      ),
    );
    expect(config.fakeOptions).toEqual({ seed: 7, mutant: "off-by-one", keys: ["t=a@web"] });
  });

  test("programmatic configuration takes numbers and is validated the same way", () => {
    expect(ok(validateConfig({ maxCreates: 3, fakeOptions: { mutant: "x" } }))).toMatchObject({
      maxCreates: 3,
      fakeOptions: { mutant: "x" },
    });
    expect(errors(validateConfig({ concurrency: 0 }))).toContain("--concurrency");
  });
});

describe("validation", () => {
  test("a base URL without an API key or agent id names both missing flags", () => {
    const message = errors(parseConfig(["--base-url", "https://api.example"], {}));
    expect(message).toContain("--api-key (or CONFORMANCE_API_KEY): is required with --base-url");
    expect(message).toContain("--agent-id (or CONFORMANCE_AGENT_ID): is required with --base-url");
  });

  test.each([
    [["--base-url", "ftp://x.example", "--api-key", "k", "--agent-id", "a"], "--base-url", "http or https"],
    [["--base-url", "not a url", "--api-key", "k", "--agent-id", "a"], "--base-url", "absolute"],
    [["--base-url", "https://u:p@x.example", "--api-key", "k", "--agent-id", "a"], "--base-url", "credentials"],
    [["--base-url", "https://x.example/?a=1", "--api-key", "k", "--agent-id", "a"], "--base-url", "query"],
    [["--max-creates=-1"], "--max-creates", "whole number"],
    [["--max-creates", "1.5"], "--max-creates", "whole number"],
    [["--concurrency", "abc"], "--concurrency", "whole number"],
    [["--concurrency", "0"], "--concurrency", "at least 1"],
    [["--request-timeout", "0"], "--request-timeout", "at least 1"],
    [["--only", "SSE-1;rm"], "--only", "requirement ID or glob"],
    [["--fake-option", "novalue"], "--fake-option", "NAME=VALUE"],
    [
      ["--base-url", "http://x.example", "--api-key", "k", "--agent-id", "a", "--fake-option", "seed=1"],
      "--fake-option",
      "embedded fake",
    ],
  ])("%j is rejected naming %s", (argv, flag, words) => {
    const message = errors(parseConfig(argv, {}));
    expect(message).toContain(flag);
    expect(message).toContain(words);
  });

  test("an invalid environment value names the variable", () => {
    expect(errors(parseConfig([], { CONFORMANCE_RUNS: "many" }))).toContain("CONFORMANCE_RUNS");
  });

  test("unknown flags and positional arguments are errors", () => {
    expect(errors(parseConfig(["--bogus"], {}))).toContain("--bogus");
    expect(errors(parseConfig(["stray"], {}))).toContain("stray");
  });

  test("a validation error never repeats a key", () => {
    const message = errors(
      parseConfig(["--base-url", "https://x.example", "--api-key", "sk-secret-value", "--concurrency", "0"], {}),
    );
    expect(message).not.toContain("sk-secret-value");
  });
});

test("usage lists every flag with its environment variable", () => {
  const text = usage();
  for (const flag of [
    "--base-url",
    "--api-key",
    "--agent-id",
    "--other-agent-id",
    "--other-api-key",
    "--max-creates",
    "--only",
    "--strict",
    "--report-dir",
    "--fake-option",
    "--help",
  ]) {
    expect(text).toContain(flag);
  }
  expect(text).toContain("CONFORMANCE_BASE_URL");
  expect(text).toContain("Exit codes");
});

test("--help names the proxy and judge subcommands, and no repository path of the checks", () => {
  const text = usage();
  expect(text).toContain("agent-conformance proxy --upstream URL");
  expect(text).toContain("agent-conformance judge FILE.har");
  expect(text).not.toContain("suite/checks");
  expect(text).toContain("result follows the exit code");
});

describe("the same identity twice", () => {
  test("the same key, or the same agent, for both flags is named; keys are not printed", () => {
    expect(sameIdentityErrors({ apiKey: "sk-1", otherApiKey: "sk-1" })).toEqual([
      expect.stringContaining("--api-key and --other-api-key"),
    ]);
    expect(sameIdentityErrors({ agentId: "bot", otherAgentId: "bot " })).toEqual([
      expect.stringContaining("--agent-id and --other-agent-id"),
    ]);
    expect(sameIdentityErrors({ apiKey: "sk-1", otherApiKey: "sk-2", agentId: "a", otherAgentId: "b" })).toEqual([]);
    expect(sameIdentityErrors({ apiKey: "sk-1", otherApiKey: "sk-1" }).join("")).not.toContain("sk-1");
  });
});

test("the report directory is read from the raw arguments, for reports of a usage error", () => {
  expect(reportDirOf(["--bogus", "--report-dir", "out"], {})).toBe("out");
  expect(reportDirOf(["--report-dir=out2"], {})).toBe("out2");
  expect(reportDirOf([], { CONFORMANCE_REPORT_DIR: "env-dir" })).toBe("env-dir");
  expect(reportDirOf(["--bogus"], {})).toBe(DEFAULTS.reportDir);
});

describe("the stream-error header (SSE-6)", () => {
  test("a flag or the environment gives one header line, split into name and value", () => {
    expect(ok(parseConfig(["--stream-error-header", "X-Test-Fail:  stream "], {})).streamErrorHeader).toEqual({
      name: "X-Test-Fail",
      value: "stream",
    });
    expect(
      ok(parseConfig([], { CONFORMANCE_STREAM_ERROR_HEADER: "X-Fake-Fault: error-after=1" })).streamErrorHeader,
    ).toEqual({
      name: "X-Fake-Fault",
      value: "error-after=1",
    });
    expect(ok(parseConfig([], {})).streamErrorHeader).toBeUndefined();
  });

  test("a line without a name, a value or a colon is refused naming the flag and variable", () => {
    for (const line of ["no colon", "Bad Name: x", "X-Empty:", ": value"]) {
      expect(errors(parseConfig(["--stream-error-header", line], {}))).toContain(
        "--stream-error-header (or CONFORMANCE_STREAM_ERROR_HEADER): must be one header line",
      );
    }
  });

  test("the parsed header is valid input again (programmatic use passes a parsed configuration back)", () => {
    const config = ok(parseConfig(["--stream-error-header", "X-Test-Fail: stream"], {}));
    expect(ok(validateConfig(config)).streamErrorHeader).toEqual({ name: "X-Test-Fail", value: "stream" });
  });
});

describe("live plumbing", () => {
  test("--header is repeatable, comes one per line from the environment, and names are lower-cased", () => {
    expect(ok(parseConfig(["--header", "X-Gateway-Key: abc", "--header", "X-Tenant:t1"], {})).headers).toEqual({
      "x-gateway-key": "abc",
      "x-tenant": "t1",
    });
    expect(ok(parseConfig([], { CONFORMANCE_HEADER: "X-A: 1\nX-B: 2\n" })).headers).toEqual({ "x-a": "1", "x-b": "2" });
  });

  test("--header refuses the headers the suite sets itself, and malformed lines, without echoing the value", () => {
    const refused = errors(parseConfig(["--header", "Authorization: Bearer sk-secret-123"], {}));
    expect(refused).toContain("--header (or CONFORMANCE_HEADER)");
    expect(refused).toContain("Authorization is set by the suite itself");
    expect(refused).not.toContain("sk-secret-123");
    expect(errors(parseConfig(["--header", "no colon here"], {}))).toContain('"Name: value"');
  });

  test("profiles, retries, pacing, settling and exclusions are validated", () => {
    expect(
      ok(
        parseConfig(
          [
            "--profile",
            "smoke",
            "--max-rps",
            "2.5",
            "--max-retries",
            "0",
            "--settle-ms",
            "0",
            "--exclude",
            "SSE-9,LIST-*",
          ],
          {},
        ),
      ),
    ).toMatchObject({ profile: "smoke", maxRps: 2.5, maxRetries: 0, settleMs: 0, exclude: ["SSE-9", "LIST-*"] });
    expect(errors(parseConfig(["--profile", "nightly"], {}))).toContain('must be "full", "smoke" or "deep"');
    expect(ok(parseConfig([], { CONFORMANCE_PROFILE: "deep" }))).toMatchObject({ profile: "deep" });
    expect(ok(parseConfig(["--profile", "deep", "--max-creates", "1000"], {}))).toMatchObject({
      profile: "deep",
      maxCreates: 1000,
    });
    expect(errors(parseConfig(["--max-rps", "0"], {}))).toContain("--max-rps");
    expect(errors(parseConfig(["--max-retries", "-1"], {}))).toContain("--max-retries");
  });
});

describe("a target named wrongly or not at all", () => {
  test("identities without a base URL are an error naming the missing base URL, flags and variables alike", () => {
    const fromVariables = parseConfig([], {
      CONFORMANCE_API_KEY: "sk-live-secret",
      CONFORMANCE_AGENT_ID: "support-bot",
    });
    expect(fromVariables.ok).toBe(false);
    expect(errors(fromVariables)).toMatch(
      /^no base URL \(--base-url or CONFORMANCE_BASE_URL\), though CONFORMANCE_API_KEY, CONFORMANCE_AGENT_ID are given: /,
    );
    expect(errors(fromVariables)).not.toContain("sk-live-secret");
    expect(errors(parseConfig(["--other-agent-id", "sales-bot"], {}))).toContain("though --other-agent-id is given");
    // With a base URL they are what the run needs; without any identity the embedded fake runs.
    expect(
      ok(
        parseConfig([], {
          CONFORMANCE_BASE_URL: "https://x.example",
          CONFORMANCE_API_KEY: "k",
          CONFORMANCE_AGENT_ID: "a",
        }),
      ).baseUrl,
    ).toBe("https://x.example");
    expect(ok(parseConfig([], {})).baseUrl).toBeUndefined();
  });

  test("a CONFORMANCE_ variable the suite does not read is named with the one it most likely meant", () => {
    const typo = errors(
      parseConfig([], {
        CONFORMANCE_BASEURL: "https://x.example",
        CONFORMANCE_API_KEY: "k",
        CONFORMANCE_AGENT_ID: "a",
      }),
    );
    expect(typo).toContain("CONFORMANCE_BASEURL is not a variable the suite reads: did you mean CONFORMANCE_BASE_URL?");
    expect(typo).toContain("no base URL");
    expect(errors(parseConfig([], { CONFORMANCE_MAX_CREATE: "10" }))).toBe(
      "CONFORMANCE_MAX_CREATE is not a variable the suite reads: did you mean CONFORMANCE_MAX_CREATES?",
    );
    expect(errors(parseConfig([], { CONFORMANCE_WHATEVER_ELSE: "1" }))).toContain(
      "CONFORMANCE_WHATEVER_ELSE is not a variable the suite reads (--help lists each flag's variable)",
    );
  });

  test("an unknown flag is one line naming the flag meant", () => {
    const result = parseConfig(["--base_url", "https://x.example"], {});
    expect(result).toEqual({
      ok: false,
      errors: ["Unknown option --base_url: did you mean --base-url?"],
      unknownFlag: true,
    });
  });
});
