/** The one timestamp formatter: stored epoch milliseconds -> RFC 3339 UTC with milliseconds. */
export function formatTimestamp(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
