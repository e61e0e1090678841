/** The flags the traffic proxy and the offline judge share. */
import { DEFAULTS } from "../runner/config.ts";
import { textFlag, UsageError, type FlagTable } from "../../cli/flags.ts";
import { parseGate } from "./gate.ts";
import { parseSettleMs } from "./judge.ts";

/** --gate and --settle-ms: the proxy and the judge read them alike. */
export const TRAFFIC_JUDGE_FLAGS = {
  gate: {
    name: "gate",
    value: "service|client|both",
    help: `whose verdict sets the result and exit code (default service);
the report shows both`,
    parser: textFlag((text) => {
      const gate = parseGate(text);
      if (typeof gate === "object") throw new UsageError(gate.error);
      return gate;
    }),
  },
  settleMs: {
    name: "settle-ms",
    value: "N",
    help: `how long the service may take to show a delete or an exchange
in its listings (default ${DEFAULTS.settleMs}, as the suite's)`,
    parser: textFlag((text) => {
      const settleMs = parseSettleMs(text);
      if (typeof settleMs === "string") throw new UsageError(settleMs);
      return settleMs;
    }),
  },
} satisfies FlagTable;
