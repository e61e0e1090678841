/**
 * RFC 3339 with microseconds and a numeric offset, as many frameworks write timestamps
 * (the microsecond-timestamps variant): 2026-11-23T21:41:46.123456+01:00 for the instant
 * 2026-11-23T20:41:46.123Z and some microseconds.
 */

const OFFSET_MINUTES = 60;
const OFFSET = "+01:00";

/**
 * The stored millisecond gives the first three fraction digits; the three microsecond digits
 * are derived from it, so they are not always zero, equal instants stay equal strings, and
 * the order of instants is the order of their texts' instants.
 */
function microseconds(epochMs: number): string {
  const millisecond = ((epochMs % 1000) + 1000) % 1000;
  return String((millisecond * 7 + 123) % 1000).padStart(3, "0");
}

export function formatOffsetMicroseconds(epochMs: number): string {
  // The wall-clock time at the offset, written as toISOString writes UTC, then the offset instead of "Z".
  const local = new Date(epochMs + OFFSET_MINUTES * 60_000).toISOString();
  return `${local.slice(0, 23)}${microseconds(epochMs)}${OFFSET}`;
}
