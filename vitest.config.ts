import { defineConfig } from "vitest/config";

// The project's own tests: unit and property tests beside the code, and the gate that
// runs the conformance suite against the fake. The conformance checks themselves
// (suite/checks/*.check.ts) only run through the conformance runner.
export default defineConfig({
  test: {
    include: ["{requirements,schemas,suite,fake-server,scripts,examples}/**/*.test.ts"],
    exclude: ["**/node_modules/**", "dist/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
