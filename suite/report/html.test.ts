import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { renderHtmlReport, writeHtmlReport } from "./html.ts";
import { groupByFamily } from "./requirement-rows.ts";
import { SafeHtml, escapeHtml, html, withInlineCode } from "./safe-html.ts";
import {
  HOSTILE_BODY,
  HOSTILE_MESSAGE,
  INCONCLUSIVE_MESSAGE,
  incompleteSampleReport,
  REQUEST_URL,
  sampleReport,
} from "../test-support/sample-report.ts";
import { count, formatDuration } from "./format.ts";
import { errorReport } from "../runner/error-report.ts";
import { COUNTEREXAMPLE_MESSAGE, counterexampleReport } from "../test-support/sample-counterexample.ts";
import type { InteractionsSummary } from "../interactions/coverage.ts";

/** The markup of one requirement's article. */
function article(page: string, id: string): string {
  const match = page.match(new RegExp(`<article class="req \\w+" id="req-${id}"[\\s\\S]*?</article>`));
  if (!match) throw new Error(`no article for ${id}`);
  return match[0];
}

describe("escaping", () => {
  test("escapeHtml escapes the five markup characters", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;",
    );
  });

  test("the html template escapes interpolations, joins arrays, drops empty values and keeps SafeHtml", () => {
    const out = html`<p>${"<i>"}${["a", "<b>"]}${null}${undefined}${false}${0}${new SafeHtml("<br>")}</p>`;
    expect(out.value).toBe("<p>&lt;i&gt;a&lt;b&gt;0<br></p>");
  });

  test("backtick spans become <code>, escaped, and an unpaired backtick stays text", () => {
    expect(withInlineCode("a `<b>` and `c`").value).toBe("a <code>&lt;b&gt;</code> and <code>c</code>");
    expect(withInlineCode("x ` y `z` w").value).toBe("x <code> y </code>z` w");
    expect(withInlineCode("plain").value).toBe("plain");
  });

  test("a <script> in a failure message or a response body is shown as text, never as markup", () => {
    const page = renderHtmlReport(sampleReport());
    // The page has no script of its own, so any <script or <img tag would have come from the data.
    expect(page).not.toMatch(/<script/i);
    expect(page).not.toMatch(/<img/i);
    expect(page).toContain(escapeHtml(HOSTILE_MESSAGE));
    expect(page).toContain(escapeHtml(HOSTILE_BODY));
  });

  test("the target, run id and transcript headers are escaped too", () => {
    const report = sampleReport({ target: `<b onmouseover="x()">target</b>`, runId: `"><script>1</script>` });
    const page = renderHtmlReport(report);
    expect(page).not.toContain("<b onmouseover");
    expect(page).not.toMatch(/<script/i);
    expect(page).toContain("&lt;b onmouseover=&quot;x()&quot;&gt;target&lt;/b&gt;");
  });
});

describe("layout", () => {
  test("requirements are grouped by family, in the order families first appear", () => {
    const report = sampleReport();
    const [first, ...rest] = report.requirements;
    if (!first) throw new Error("sample report has no requirements");
    // Move AUTH-1 to the end: it must still be listed with the other auth requirement.
    const shuffled = [...rest, first];
    const groups = groupByFamily(shuffled);
    expect([...groups].map(([family, reqs]) => [family, reqs.map((r) => r.id)])).toEqual([
      ["auth", ["AUTH-2", "AUTH-1"]],
      ["idempotency", ["IDEM-1", "IDEM-3"]],
      ["streaming", ["SSE-3"]],
      ["scope", ["SCOPE-3"]],
    ]);

    const page = renderHtmlReport({ ...report, requirements: shuffled });
    const sections = [...page.matchAll(/<section class="family" id="family-(\w+)">([\s\S]*?)<\/section>/g)].map((m) => [
      m[1],
      [...(m[2] ?? "").matchAll(/<article class="req \w+" id="req-([A-Z]+-\d+)"/g)].map((a) => a[1]),
    ]);
    expect(sections).toEqual([
      ["auth", ["AUTH-2", "AUTH-1"]],
      ["idempotency", ["IDEM-1", "IDEM-3"]],
      ["streaming", ["SSE-3"]],
      ["scope", ["SCOPE-3"]],
    ]);
  });

  test("the header shows the result, counts, budget, run id, seed, date and duration", () => {
    const page = renderHtmlReport(sampleReport());
    expect(page).toMatch(
      /<div class="banner fail" role="status" id="result"><strong>FAIL<\/strong><span>2 requirements failed\.<\/span>/,
    );
    for (const text of [
      "2 passed",
      "2 failed",
      "1 warned",
      "1 skipped",
      "<dt>Tests</dt><dd>7</dd>",
      "17 spent of a budget of 60",
      "run-42",
      "1234567",
      "2026-01-02T03:04:05.678Z",
      "1 min 24 s",
      "5 conversations deleted",
    ]) {
      expect(page).toContain(text);
    }
  });

  test("a passing run says PASS and has a message for the empty failures filter", () => {
    const report = sampleReport();
    const passing = sampleReport({
      result: "pass",
      counts: { ...report.counts, fail: 0, warn: 0 },
      requirements: report.requirements.filter((r) => r.status === "pass" || r.status === "skip"),
    });
    const page = renderHtmlReport(passing);
    expect(page).toContain("<strong>PASS</strong>");
    expect(page).toContain('id="no-failures"');
    expect(renderHtmlReport(report)).not.toContain('id="no-failures"');
  });

  test("cleanup problems and harness errors are shown only when there are some", () => {
    const quiet = renderHtmlReport(sampleReport());
    expect(quiet).not.toContain("Cleanup problems");
    expect(quiet).not.toContain("Harness errors");
    const noisy = renderHtmlReport(
      sampleReport({
        cleanup: { deleted: 3, failed: [{ conversationId: "c-1", reason: "delete answered 500" }] },
        harnessErrors: ["target unreachable: ECONNREFUSED <127.0.0.1>"],
      }),
    );
    expect(noisy).toContain("Cleanup problems");
    expect(noisy).toContain("<code>c-1</code>: delete answered 500");
    expect(noisy).toContain("Harness errors");
    expect(noisy).toContain("target unreachable: ECONNREFUSED &lt;127.0.0.1&gt;");
  });
});

test("a baseline is summarised, and a baselined failure says it was accepted and until when", () => {
  const report = sampleReport({
    baseline: {
      file: "known-failures.json",
      baselined: ["IDEM-3"],
      problems: ["LIST-6 is listed in the baseline but passed: remove it"],
    },
  });
  report.requirements = report.requirements.map((r) =>
    r.id === "IDEM-3" ? { ...r, baselined: true, baselineReason: "<fix> due in Q1", baselineExpires: "2027-01-31" } : r,
  );
  const page = renderHtmlReport(report);
  expect(page).toContain("Baseline <code>known-failures.json</code>");
  expect(page).toContain('<a href="#req-IDEM-3">IDEM-3</a>');
  expect(page).toContain("LIST-6 is listed in the baseline but passed: remove it");
  expect(article(page, "IDEM-3")).toContain(
    "Known failure, accepted by the baseline until 2027-01-31: &lt;fix&gt; due in Q1",
  );
  expect(renderHtmlReport(sampleReport())).not.toContain('id="baseline"');
});

describe("requirement rows", () => {
  const page = renderHtmlReport(sampleReport());

  test("failed and warned requirements open their tests; passing and skipped ones do not", () => {
    expect(article(page, "IDEM-3")).toContain('<details class="tests" open>');
    expect(article(page, "AUTH-2")).toContain('<details class="tests" open>');
    expect(article(page, "IDEM-1")).toContain('<details class="tests">');
    expect(article(page, "SCOPE-3")).toContain('<details class="tests">');
  });

  test("each row has its id, level, status as text, summary and spec sentence", () => {
    const row = article(page, "IDEM-3");
    expect(row).toContain(
      '<span class="id">IDEM-3</span><span class="level">MUST</span><span class="badge fail">✗ FAIL</span>',
    );
    expect(row).toContain("Same key with a different payload is HTTP 409, and nothing is consumed.");
    expect(row).toContain(
      '<blockquote class="spec">The same key with a different payload returns HTTP 409.</blockquote>',
    );
    expect(article(page, "AUTH-2")).toContain("! WARN");
    expect(article(page, "AUTH-1")).toContain("✓ PASS");
  });

  test("a skipped requirement shows its reason", () => {
    expect(article(page, "SCOPE-3")).toContain('<p class="reason">Skipped: needs --other-api-key</p>');
  });

  test("a failing test shows its message and the request and response of its transcript", () => {
    const row = article(page, "IDEM-3");
    expect(row).toContain(
      `POST ${REQUEST_URL}\nauthorization: Bearer sk-f…(redacted)\ncontent-type: application/json\nidempotency-key: run-42-idem-3\n\n{&quot;message&quot;:&quot;run-42 a different payload&quot;}`,
    );
    expect(row).toContain("HTTP 200\ncontent-type: application/json\n\n");
    expect(row).toContain("Response · 12 ms");
  });

  test("a stream timeline lists each event's time, name and data", () => {
    const row = article(page, "SSE-3");
    expect(row).toContain("Stream 1: 3 events");
    expect(row).toContain('<tr><td class="at">17</td><td>response.output_text.delta</td>');
    expect(row).toContain(
      '<tr><td class="at">29</td><td><em>(no event line)</em></td><td class="data">&lt;b&gt;not json&lt;/b&gt;</td></tr>',
    );
  });
});

describe("a property failure", () => {
  const row = article(renderHtmlReport(counterexampleReport()), "RESP-2");

  test("the transcript is shown once, in the counterexample's preformatted lines", () => {
    expect(row.match(/#2 lane 1 POST/g)).toHaveLength(1);
    expect(row).toMatch(/<pre class="operations">#1 lane 0 POST [^\n]*\n#2 lane 1 POST/);
  });

  test("the reason and the test's message are the headline, the reason pointing below for the rest", () => {
    const headline = COUNTEREXAMPLE_MESSAGE.split("\n")[0] ?? "";
    expect(row).toContain(`<p class="reason">Reason: ${headline} (in full below)</p>`);
    expect(row).toContain(`<pre class="message">${headline}</pre>`);
  });
});

describe("interaction coverage", () => {
  const interactions: InteractionsSummary = {
    seeds: [123456, 123457],
    sequences: 3,
    operations: 412,
    creates: 24,
    coverage: {
      transitions: {
        covered: 87,
        total: 92,
        missing: [
          "deleted/completed/replay/stream/own",
          "live/fresh/create/plain/<unknown-key>",
          "none/fresh/list/n/a/no-key",
          "in-flight/in-flight/replay/stream/own",
          "unknown/unknown-outcome/delete/n/a/own",
        ],
      },
      orderings: { covered: 15, total: 16, missing: ["delete-after-delta/exchange-first"] },
      inputs: { covered: 31, total: 31, missing: [] },
      client: {
        covered: 0,
        total: 6,
        missing: [
          "drop:after-created/retry-soon/same",
          "drop:after-delta/retry-soon/same",
          "drop:before-completion/retry-late/other",
          "drop:after-created/retry-late/same",
          "drop:after-delta/retry-late/other",
          "cancel",
        ],
      },
    },
  };
  const page = renderHtmlReport(sampleReport({ interactions }));
  const table = (dimension: string) =>
    page.match(new RegExp(`<table class="coverage \\w+" id="coverage-${dimension}">[\\s\\S]*?</table>`))?.[0] ?? "";
  const rows = (dimension: string) =>
    [...table(dimension).matchAll(/<tr class="(\w+)"><td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => [m[1], m[2]]);

  test("a table per dimension, in the report's order, each with covered/total", () => {
    const tables = [
      ...page.matchAll(
        /<table class="coverage (\w+)" id="coverage-(\w+)">\n<caption>[^<]*: <strong>(\d+\/\d+)<\/strong> covered<\/caption>/g,
      ),
    ].map((m) => [m[2], m[1], m[3]]);
    expect(tables).toEqual([
      ["transitions", "partial", "87/92"],
      ["orderings", "partial", "15/16"],
      ["inputs", "complete", "31/31"],
      ["client", "partial", "0/6"],
    ]);
  });

  test("the missing cells come first, escaped, then a note of what was covered", () => {
    expect(rows("transitions")).toEqual([
      ["missing", "<code>deleted/completed/replay/stream/own</code>"],
      ["missing", "<code>live/fresh/create/plain/&lt;unknown-key&gt;</code>"],
      ["missing", "<code>none/fresh/list/n/a/no-key</code>"],
      ["missing", "<code>in-flight/in-flight/replay/stream/own</code>"],
      ["missing", "<code>unknown/unknown-outcome/delete/n/a/own</code>"],
      ["covered", "The other 87 reachable cells were covered."],
    ]);
    expect(rows("orderings").at(-1)).toEqual(["covered", "The other 15 reachable cells were covered."]);
    expect(rows("inputs")).toEqual([["covered", "Every one of the 31 reachable cells was covered."]]);
    expect(rows("client").filter(([kind]) => kind === "missing")).toHaveLength(6);
    expect(rows("client").at(-1)).toEqual(["covered", "No cell was covered."]);
  });

  test("the run's figures head the section, and the header links to it with each dimension's covered/total", () => {
    expect(page).toContain(
      "The interaction property ran 3 sequences, 412 operations and 24 creates; seeds 123456, 123457.",
    );
    expect(page).toContain(
      '<dt>Interactions</dt><dd><a href="#interactions">transitions 87/92, orderings 15/16, inputs 31/31, client 0/6</a></dd>',
    );
    // After the requirements: the filter and the verdicts come first.
    expect(page.indexOf('id="interactions"')).toBeGreaterThan(page.indexOf("</main>"));
  });

  test("nothing when the property did not run", () => {
    const without = renderHtmlReport(sampleReport());
    expect(without).not.toContain('id="interactions"');
    expect(without).not.toContain("<dt>Interactions</dt>");
    expect(without).not.toContain('class="coverage');
  });
});

describe("an incomplete run", () => {
  const page = renderHtmlReport(incompleteSampleReport());

  test("the title says INCOMPLETE too", () => {
    expect(page).toContain("<title>Conformance INCOMPLETE: http://127.0.0.1:4010 (agent agent-a)</title>");
  });

  test("the banner says INCOMPLETE, not PASS, and counts the inconclusive requirement", () => {
    expect(page).toContain(
      '<div class="banner inconclusive" role="status" id="result"><strong>INCOMPLETE</strong>' +
        "<span>No MUST failed, but 2 MUST requirements could not be judged: the run is incomplete.</span>",
    );
    expect(page).not.toContain("<strong>PASS</strong>");
    expect(page).toContain('<li class="badge inconclusive">1 inconclusive</li>');
  });

  test('the "Not judged" list names every MUST left unjudged, with why, and not the excluded one', () => {
    const list = page.match(/<div class="alert incomplete" id="incomplete">[\s\S]*?<\/div>/)?.[0] ?? "";
    expect(list).toContain("<h3>Not judged</h3>");
    const items = [...list.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) => m[1]);
    expect(items).toEqual([
      `<a href="#req-LIST-1">LIST-1</a> inconclusive: ${escapeHtml(INCONCLUSIVE_MESSAGE)}`,
      '<a href="#req-SCOPE-3">SCOPE-3</a> skip: needs --other-api-key',
    ]);
    expect(renderHtmlReport(sampleReport())).not.toContain('id="incomplete"');
  });

  test("an inconclusive requirement has its badge and reason, and opens its tests", () => {
    const row = article(page, "LIST-1");
    expect(row).toContain('<article class="req inconclusive"');
    expect(row).toContain('<span class="level">MUST</span><span class="badge inconclusive">? INCONCLUSIVE</span>');
    expect(row).toContain(`<p class="reason">Inconclusive: ${escapeHtml(INCONCLUSIVE_MESSAGE)}</p>`);
    expect(row).toContain('<details class="tests" open><summary>1 test, 1 inconclusive</summary>');
  });

  test("a test the target made wait says how: retries by status and settling reads", () => {
    expect(article(page, "LIST-1")).toContain(
      '<p class="waiting">Retried 2 try-later answers (429 ×2), waiting 3.0 s. ' +
        "Read the listing 1 more time(s) over 0.5 s before it showed a finished exchange.</p>",
    );
    expect(article(page, "AUTH-1")).not.toContain('class="waiting"');
  });
});

describe("the page is self-contained", () => {
  test("its policy allows only its own inline stylesheet, by hash", () => {
    const page = renderHtmlReport(sampleReport());
    const css = page.match(/<style>([\s\S]*?)<\/style>/)?.[1] ?? "";
    const hash = createHash("sha256").update(css).digest("base64");
    expect(page).toContain(escapeHtml(`default-src 'none'; style-src 'sha256-${hash}'`));
    expect(page).not.toMatch(/<[^>]*\s(src|href)=/i);
    expect(page).not.toMatch(/@import|url\(/i);
  });
});

test("count pluralises its noun", () => {
  expect([count(0, "test"), count(1, "test"), count(2, "test")]).toEqual(["0 tests", "1 test", "2 tests"]);
});

test.each([
  [850, "850 ms"],
  [12_340, "12.3 s"],
  [245_000, "4 min 05 s"],
])("formatDuration(%d) is %s", (ms, text) => {
  expect(formatDuration(ms)).toBe(text);
});

describe("writeHtmlReport", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test("writes report.html into the given folder, creating it", async () => {
    dir = await mkdtemp(join(tmpdir(), "html-report-"));
    const report = sampleReport();
    const path = await writeHtmlReport(report, join(dir, "nested"));
    expect(path).toBe(join(dir, "nested", "report.html"));
    expect(await readFile(path, "utf8")).toBe(renderHtmlReport(report));
  });
});

describe("a run that stopped before any check", () => {
  const page = renderHtmlReport(
    errorReport({
      target: "http://127.0.0.1:9 (agent a)",
      diagnosis: ["the API key was refused (401): check --api-key"],
    }),
  );

  test("title and banner say ERROR, with the diagnosis", () => {
    expect(page).toContain("<title>Conformance ERROR: http://127.0.0.1:9 (agent a)</title>");
    expect(page).toContain(
      '<div class="banner fail" role="status" id="result"><strong>ERROR</strong>' +
        "<span>The run stopped before any check: the API key was refused (401): check --api-key</span>",
    );
  });
});
