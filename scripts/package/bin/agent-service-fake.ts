#!/usr/bin/env node
// The package's `agent-service-fake` bin: the reference fake's command line, as built JavaScript
// run by plain node.
import "../../fake.ts";
