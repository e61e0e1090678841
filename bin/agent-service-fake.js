#!/usr/bin/env node
// The package's `agent-service-fake` bin: the reference fake's command line, built into dist/ by
// `npm run build` (prepack). A file of its own, so the bin exists before the build and npm never warns about it.
import "../dist/scripts/fake.js";
