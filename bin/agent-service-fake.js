#!/usr/bin/env node
// The package's `agent-service-fake` bin: the reference fake's command line (scripts/fake.ts).
// A file of its own, present before any build, so npm never warns that the bin is missing.
import { runCommandLine } from "./command-line.js";

await runCommandLine("fake");
