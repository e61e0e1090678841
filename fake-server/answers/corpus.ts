/**
 * The help center the fake's agent answers from: the twelve articles of a fictional app, "Pebble
 * Planner", each a frozen citation and the words that find it.
 */
import type { Citation } from "../../schemas/index.ts";

/**
 * The help center of "Pebble Planner", the fictional task-planning app the fake's agents
 * support. Each entry is the citation the fake returns (frozen, and shared by every message
 * that cites it) plus the words it is found by.
 */
export interface CorpusDocument {
  readonly citation: Readonly<Citation>;
  /** Normalised words (see `normaliseWords`) that make this document relevant. */
  readonly keywords: ReadonlySet<string>;
}

const BASE_URL = "https://help.pebbleplanner.example/articles/";

const entries: ReadonlyArray<{ id: string; title: string; snippet: string; extra: string }> = [
  {
    id: "getting-started",
    title: "Getting started with Pebble Planner",
    snippet: "Create a workspace, add your first project and invite teammates from the Welcome screen.",
    extra: "start begin new setup onboarding first",
  },
  {
    id: "sync",
    title: "Syncing across devices",
    snippet: "Pebble Planner syncs tasks between phone, tablet and desktop every few seconds while you are online.",
    extra: "synchronise synchronize device laptop mobile missing update",
  },
  {
    id: "offline",
    title: "Working offline",
    snippet: "Edits made offline stay on the device and are merged automatically the next time the app connects.",
    extra: "internet connection airplane flight network conflict merge",
  },
  {
    id: "plans-and-billing",
    title: "Plans and billing",
    snippet:
      "The Free plan covers three projects; Pro adds unlimited projects, attachments and priority support, billed monthly or yearly.",
    extra: "price pricing cost pay payment invoice upgrade subscription free pro",
  },
  {
    id: "cancel-subscription",
    title: "Cancelling a subscription",
    snippet: "Cancel Pro at any time under Settings > Billing; access continues until the end of the paid period.",
    extra: "cancel cancellation refund downgrade stop subscription",
  },
  {
    id: "reset-password",
    title: "Resetting your password",
    snippet: "Use Forgot password on the sign-in screen; the link in the reset email is valid for one hour.",
    extra: "password forgot login sign reset locked email",
  },
  {
    id: "two-factor",
    title: "Two-factor authentication",
    snippet:
      "Turn on two-factor sign-in under Settings > Security with any authenticator app, and keep the backup codes somewhere safe.",
    extra: "2fa mfa security authenticator code codes secure",
  },
  {
    id: "sharing",
    title: "Sharing projects",
    snippet: "Invite people to a project by email; editors can change tasks, viewers can only read and comment.",
    extra: "share invite collaborate team teammate permission editor viewer",
  },
  {
    id: "reminders",
    title: "Reminders and notifications",
    snippet: "Give a task a due time to get a reminder, and choose push, email or both under Settings > Notifications.",
    extra: "remind reminder notification alert due deadline push",
  },
  {
    id: "export",
    title: "Exporting your data",
    snippet:
      "Export any project as CSV or JSON from its menu; a full account export arrives by email as a ZIP archive.",
    extra: "export backup download csv json data archive",
  },
  {
    id: "calendar",
    title: "Calendar integration",
    snippet:
      "Connect a Google or Outlook calendar so tasks with due dates appear as events and move when you reschedule them.",
    extra: "calendar google outlook integration event schedule",
  },
  {
    id: "delete-account",
    title: "Deleting your account",
    snippet:
      "Deleting your account removes every project after a 14-day grace period in which signing back in restores it.",
    extra: "delete deletion remove close account erase gdpr",
  },
];

// Common words, and words every article shares, would make every document look relevant.
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "the and for are you your with from into can any how what when why who our this that does have has not but all get its " +
    "pebble planner task project setting app"
  ).split(" "),
);

const NOT_WORD = /[^\p{L}\p{N}]+/u;

/**
 * Lower-cased letter/digit runs of three or more characters, minus stop words, with a
 * trailing plural "s" dropped so that "reminders" finds "reminder".
 */
export function normaliseWords(text: string): Set<string> {
  const words = new Set<string>();
  // Splitting on the runs of everything else gives the same runs as matching letters and
  // digits, without a match object per word; the empty ends are shorter than three.
  for (let word of text.toLowerCase().split(NOT_WORD)) {
    if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) word = word.slice(0, -1);
    if (word.length >= 3 && !STOP_WORDS.has(word)) words.add(word);
  }
  return words;
}

export const CORPUS: readonly CorpusDocument[] = Object.freeze(
  entries.map(({ id, title, snippet, extra }) =>
    Object.freeze({
      citation: Object.freeze({ document_id: `doc-${id}`, title, url: `${BASE_URL}${id}`, snippet }),
      keywords: normaliseWords(`${title} ${snippet} ${extra}`),
    }),
  ),
);
