/**
 * A history kept as data (histories/*.json), as porcupine keeps its test_data/: operations as
 * the model reads them (operation.ts), serialised, with what the model must find in them. Most
 * are counterexamples the interaction property found against a mutant of the fake and shrank;
 * a few conform, and must pass. The loader checks a file against the Op type before the model
 * sees it, so a file that no longer fits fails with what is wrong, not with a verdict.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { REQUIREMENTS, type RequirementId } from "../../requirements/catalog.ts";
import type { Op } from "./operation.ts";

const ids: readonly RequirementId[] = REQUIREMENTS.map((r) => r.id);

const outcome = <T extends z.ZodType>(value: T) =>
  z.union([
    z.strictObject({ type: z.literal("ok"), status: z.number().int(), value }),
    // A refusal without a code is written without the field (JSON has no undefined).
    z
      .strictObject({ type: z.literal("refused"), status: z.number().int(), code: z.string().optional() })
      .transform((o) => ({ type: o.type, status: o.status, code: o.code })),
    z
      .strictObject({ type: z.literal("unknown"), status: z.number().int().optional(), reason: z.string() })
      .transform((o) => ({ type: o.type, status: o.status, reason: o.reason })),
  ]);

const timed = { index: z.number().int().min(1), start: z.number(), end: z.number(), who: z.string() };

const CreateOpFile = z.strictObject({
  kind: z.literal("create"),
  ...timed,
  endpoint: z.enum(["plain", "stream"]),
  key: z.string().nullable(),
  message: z.string(),
  conversationId: z.string().nullable(),
  payload: z.string(),
  raw: z.string().optional(),
  openShape: z.string().optional(),
  optionalFields: z.boolean().optional(),
  exclusive: z.boolean().optional(),
  outcome: outcome(z.strictObject({ conversationId: z.string(), text: z.string(), citations: z.string() })),
});

const ListOpFile = z.strictObject({
  kind: z.literal("list"),
  ...timed,
  conversationId: z.string(),
  query: z.strictObject({ page: z.number().int().optional(), pageSize: z.number().int().optional() }),
  lagsFrom: z.number().optional(),
  settledBefore: z.number().optional(),
  outcome: outcome(
    z.strictObject({
      conversationId: z.string(),
      page: z.number().int(),
      pageSize: z.number().int(),
      total: z.number().int(),
      hasMore: z.boolean(),
      items: z.array(z.unknown()),
      createdAt: z.unknown(),
      updatedAt: z.unknown(),
    }),
  ),
});

const DeleteOpFile = z.strictObject({
  kind: z.literal("delete"),
  ...timed,
  conversationId: z.string(),
  outcome: outcome(z.null()),
});

const OpFile = z.discriminatedUnion("kind", [CreateOpFile, ListOpFile, DeleteOpFile]);

export const HistoryFile = z
  .strictObject({
    /** What the history shows, in a sentence. */
    about: z.string().min(1),
    /** Where it came from: the mutant of the fake, the seed and path that found it; or written by hand. */
    source: z.string().min(1),
    /**
     * The requirements of what the model finds, in the order found: SHOULD warnings, then the
     * MUST that fails the history (last). Empty for a history that conforms.
     */
    finds: z.array(z.enum(ids)),
    /** The operations, numbered from 1 (#n) in the order sent. */
    history: z.array(OpFile).min(1),
  })
  .superRefine((file, context) => {
    file.history.forEach((op, i) => {
      if (op.index !== i + 1)
        context.addIssue({
          code: "custom",
          path: ["history", i, "index"],
          message: `operation ${i + 1} is numbered #${op.index}`,
        });
      if (op.end < op.start)
        context.addIssue({
          code: "custom",
          path: ["history", i, "end"],
          message: `#${op.index} ends before it starts`,
        });
    });
  });

export interface History {
  readonly about: string;
  readonly source: string;
  readonly finds: readonly RequirementId[];
  readonly history: readonly Op[];
}

/** The history in `path`, checked; throws with what does not fit. */
export function loadHistory(path: string): History {
  const parsed = HistoryFile.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success) throw new Error(`${path} is not a history file:\n${z.prettifyError(parsed.error)}`);
  // Typed as the model's operations: a change to Op that this file's shape does not follow fails to compile here.
  const history: readonly Op[] = parsed.data.history;
  return { ...parsed.data, history };
}
