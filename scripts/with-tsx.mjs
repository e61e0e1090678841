/**
 * Node's --import for the repository's TypeScript entry points that run the conformance suite
 * (`npm run conformance`, `interactions`, `verify-suite`, the proof's lanes, and the tests that
 * start them): vitest's Node API is loaded first, by Node alone, and tsx's loader after it.
 *
 * Why: on Node 20, tsx's loader hooks run in a thread of their own and see every module imported
 * after them, and vitest's Node API is several hundred modules. Loaded behind the hooks it costs
 * about 2 s more CPU in every process that runs the suite (a run of `--only AUTH-1` against the
 * embedded fake: 6.1 → 4.3 s). The TypeScript that imports vitest later finds it loaded.
 *
 * A command that starts no suite run skips it (0.6 s of CPU): --help, and the suite's commands
 * that judge traffic or merge reports (`proxy`, `judge`, `merge`).
 */
const args = process.argv.slice(2);
const NO_SUITE_RUN = new Set(["proxy", "judge", "merge"]);
const runsNoSuite = args.includes("--help") || args.includes("-h") || NO_SUITE_RUN.has(args[0] ?? "");
if (!runsNoSuite) await import("vitest/node");
await import("tsx");
