/** The time a check is allowed: it grows with the creates it makes, each of which may take a whole request or stream timeout. */
export function timeAllowanceMs(
  creates: number,
  settings: { checkTimeoutMs: number; requestTimeoutMs: number; streamTimeoutMs: number },
): number {
  return settings.checkTimeoutMs + creates * Math.max(settings.requestTimeoutMs, settings.streamTimeoutMs);
}
