import type { ConformanceReport, RequirementReport, RequirementStatus, TestReport } from "../report/report-types.ts";
import type { Transcript } from "../http/types.ts";
import { requirementById } from "../../requirements/catalog.ts";

/**
 * A synthetic conformance report for the renderer's tests: every status, a failing MUST with
 * a transcript, a failing stream with a timeline, a skip with a reason, and hostile markup in
 * a message and in a response body.
 */

export const HOSTILE_MESSAGE = `expected 409, got 200 <script>window.__injected = "message"</script>`;
export const HOSTILE_BODY = `{"response":"<img src=x onerror=\\"window.__injected='body'\\"><script>window.__injected = 'body'</script>"}`;
const CONVERSATION_ID = "0b7e2c3a-2f4e-4c1e-9d8a-5b6c7d8e9f01";
export const REQUEST_URL = "http://127.0.0.1:4010/v1/agents/agent-a/responses";

export const REUSED_KEY_TRANSCRIPT: Transcript = {
  request: {
    method: "POST",
    url: REQUEST_URL,
    headers: {
      authorization: "Bearer sk-f…(redacted)",
      "content-type": "application/json",
      "idempotency-key": "run-42-idem-3",
    },
    body: `{"message":"run-42 a different payload"}`,
  },
  response: { status: 200, headers: { "content-type": "application/json" }, body: HOSTILE_BODY },
  durationMs: 12.4,
};

function requirement(id: string, status: RequirementStatus, tests: TestReport[], reason?: string): RequirementReport {
  const catalog = requirementById(id);
  if (!catalog) throw new Error(`unknown requirement ${id}`);
  const { level, family, summary, spec } = catalog;
  return { id, level, family, summary, spec, status, tests, ...(reason === undefined ? {} : { reason }) };
}

const passed = (name: string, file: string): TestReport => ({ name, file, status: "pass", durationMs: 35 });

export function sampleReport(overrides: Partial<ConformanceReport> = {}): ConformanceReport {
  const requirements = [
    requirement("AUTH-1", "pass", [passed("no key is refused on every endpoint", "auth")]),
    requirement("AUTH-2", "warn", [
      {
        name: "the refusal is 401 with WWW-Authenticate",
        file: "auth",
        status: "fail",
        durationMs: 20,
        message: "expected 401, got 403",
      },
    ]),
    requirement("IDEM-1", "pass", [passed("a replay returns the earlier result", "idempotency")]),
    requirement("IDEM-3", "fail", [
      passed("the 409 carries a JSON body", "idempotency"),
      {
        name: "the same key with a different payload is 409",
        file: "idempotency",
        status: "fail",
        durationMs: 41,
        message: HOSTILE_MESSAGE,
        transcripts: [REUSED_KEY_TRANSCRIPT],
      },
    ]),
    requirement("SSE-3", "fail", [
      {
        name: "a stream ends with response.completed",
        file: "streaming",
        status: "fail",
        durationMs: 230,
        message: "the body ended before response.completed or error",
        timelines: [
          [
            {
              at: 3,
              event: "response.created",
              data: `{"type":"response.created","conversation_id":"${CONVERSATION_ID}"}`,
            },
            {
              at: 17,
              event: "response.output_text.delta",
              data: `{"type":"response.output_text.delta","delta":"You can "}`,
            },
            { at: 29, event: undefined, data: "<b>not json</b>" },
          ],
        ],
      },
    ]),
    requirement(
      "SCOPE-3",
      "skip",
      [
        {
          name: "another key cannot list the conversation",
          file: "scope",
          status: "skip",
          durationMs: 0,
          message: "needs --other-api-key",
        },
      ],
      "needs --other-api-key",
    ),
  ];
  return reportOf(requirements, { result: "fail", ...overrides });
}

/** A report of these requirements, counted, with the sample's run facts. */
function reportOf(requirements: RequirementReport[], overrides: Partial<ConformanceReport>): ConformanceReport {
  const count = (status: RequirementStatus) => requirements.filter((r) => r.status === status).length;
  return {
    target: "http://127.0.0.1:4010 (agent agent-a)",
    result: "pass",
    strict: false,
    runId: "run-42",
    seed: 1234567,
    startedAt: "2026-01-02T03:04:05.678Z",
    durationMs: 83_500,
    counts: {
      pass: count("pass"),
      fail: count("fail"),
      warn: count("warn"),
      skip: count("skip"),
      inconclusive: count("inconclusive"),
      tests: requirements.flatMap((r) => r.tests).length,
    },
    creates: { budget: 60, spent: 17 },
    cleanup: { deleted: 5, failed: [] },
    harnessErrors: [],
    incomplete: [],
    requirements,
    ...overrides,
  };
}

export const INCONCLUSIVE_MESSAGE =
  "POST /v1/agents/agent-a/responses: no answer within 10000 ms (inconclusive: raise --request-timeout to give the target more room)";

/**
 * A run in which nothing failed but it is incomplete: an inconclusive MUST whose check the
 * target made wait, a MUST skipped for a missing identity, and one the user excluded.
 */
export function incompleteSampleReport(): ConformanceReport {
  const requirements = [
    requirement("AUTH-1", "pass", [passed("no key is refused on every endpoint", "auth")]),
    requirement(
      "LIST-1",
      "inconclusive",
      [
        {
          name: "a finished exchange is listed in order",
          file: "listing",
          status: "inconclusive",
          durationMs: 10_020,
          message: INCONCLUSIVE_MESSAGE,
          waiting: { retries: 2, retriedStatuses: { "429": 2 }, retryWaitMs: 3_000, settleReads: 1, settleWaitMs: 500 },
        },
      ],
      INCONCLUSIVE_MESSAGE,
    ),
    { ...requirement("DEL-2", "skip", [], "excluded by --exclude"), excluded: true },
    requirement(
      "SCOPE-3",
      "skip",
      [
        {
          name: "another key cannot list the conversation",
          file: "scope",
          status: "skip",
          durationMs: 0,
          message: "needs --other-api-key",
        },
      ],
      "needs --other-api-key",
    ),
  ];
  return reportOf(requirements, {
    result: "incomplete",
    incomplete: [
      { id: "LIST-1", status: "inconclusive", reason: INCONCLUSIVE_MESSAGE },
      { id: "SCOPE-3", status: "skip", reason: "needs --other-api-key" },
    ],
  });
}
