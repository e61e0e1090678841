#!/usr/bin/env node
// The package's `agent-conformance` bin: the runner's command line, as built JavaScript run by
// plain node (scripts/conformance.ts itself carries a tsx shebang for the repository).
import "../../conformance.ts";
