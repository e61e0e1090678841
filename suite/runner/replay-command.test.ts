import { expect, test } from "vitest";
import { parseConfig, type ConformanceConfig } from "./config.ts";
import { launcherOf, replayCommand, shellWord } from "./replay-command.ts";

function config(argv: string[], env: NodeJS.ProcessEnv = {}): ConformanceConfig {
  const parsed = parseConfig(argv, env);
  if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
  return parsed.config;
}

const LIVE = [
  "--base-url",
  "https://agents.example.com/api",
  "--agent-id",
  "support-bot",
  "--other-agent-id",
  "sales-bot",
];

test("the repository's npm script inside the repository, the bin everywhere else", () => {
  expect(launcherOf({ npm_lifecycle_event: "conformance", npm_package_name: "agent-service-conformance" })).toBe(
    "npm run conformance --",
  );
  expect(launcherOf({ npm_lifecycle_event: "conformance", npm_package_name: "my-service" })).toBe(
    "npx agent-conformance",
  );
  expect(launcherOf({ npm_lifecycle_event: "npx" })).toBe("npx agent-conformance");
  expect(launcherOf({})).toBe("npx agent-conformance");
});

test("the target and its identities, secrets as variables, the property's seed and path, and a report folder of its own", () => {
  const env = { CONFORMANCE_API_KEY: "sk-live-1", CONFORMANCE_OTHER_API_KEY: "sk-live-2" };
  const line = replayCommand(config(LIVE, env), 1234, { env, argv: LIVE });
  expect(line).toBe(
    'npx agent-conformance --base-url https://agents.example.com/api --api-key "$CONFORMANCE_API_KEY" --agent-id support-bot' +
      ' --other-agent-id sales-bot --other-api-key "$CONFORMANCE_OTHER_API_KEY" --profile full' +
      " --only interactions --seed 1234 --path {path} --report-dir reports-replay-1234-{path}",
  );
});

test("a key given as a flag's value is written as its variable, and the line says to set it; never the key", () => {
  const argv = [
    ...LIVE,
    "--api-key",
    "sk-live-secret",
    "--header",
    "X-Gateway-Key: gw-secret",
    "--report-dir",
    "out/ci",
  ];
  const line = replayCommand(config(argv), 7, { env: {}, argv });
  expect(line).not.toMatch(/sk-live-secret|gw-secret/);
  expect(line).toContain('--api-key "$CONFORMANCE_API_KEY"');
  expect(line).toContain('--header "x-gateway-key: $X_GATEWAY_KEY"');
  expect(line).toContain("--report-dir out/ci-replay-7-{path}");
  expect(line).toMatch(
    / {2}# set CONFORMANCE_API_KEY to the key given with --api-key, X_GATEWAY_KEY to the value given with --header x-gateway-key$/,
  );
});

test("the embedded fake's options (a mutant), the profile, bounds that differ from the defaults, --strict and the shard", () => {
  const argv = [
    "--fake-option",
    "mutant=page-alone-default-size",
    "--fake-option",
    "seed=7",
    "--profile",
    "smoke",
    "--settle-ms",
    "500",
    "--strict",
    "--shard",
    "2/3",
    "--only",
    "SSE-*",
    "--seed",
    "99",
    "--rerun-failed",
    "x.json",
  ];
  const line = replayCommand(config(argv), 99, { env: {}, argv });
  expect(line).toBe(
    "npx agent-conformance --fake-option mutant=page-alone-default-size --fake-option seed=7 --profile smoke --settle-ms 500 --strict --shard 2/3" +
      " --only interactions --seed 99 --path {path} --report-dir reports-replay-99-{path}",
  );
});

test("words a shell would split or expand are quoted", () => {
  expect(shellWord("https://x.example/a")).toBe("https://x.example/a");
  expect(shellWord("my reports")).toBe("'my reports'");
  expect(shellWord("it's $HOME")).toBe("'it'\\''s $HOME'");
});
