#!/usr/bin/env node
// The package's `agent-conformance` bin: the suite's command line (scripts/conformance.ts).
// A file of its own, present before any build, so npm never warns that the bin is missing.
import { runCommandLine } from "./command-line.js";

await runCommandLine("conformance");
