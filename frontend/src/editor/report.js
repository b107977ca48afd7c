// The verdict panel: overall verdict and score, one row per test, the diagnosis and heatmaps for
// failing visible tests, and what the code printed.
import { h, shapeText } from "./dom.js";
import { tensorFeedback } from "./heatmap.js";
import { labFigures } from "./labview.js";

const STATUS_WORDS = {
  sending: "Sending your code…",
  queued: "Queued: waiting for a grader…",
  running: "Running your code…",
};

export function statusWords(status) {
  return STATUS_WORDS[status] || "Working…";
}

/** Visible tests, and hidden ones the exercise lets students see now (after the due date). */
function shown(test) {
  return !test.hidden || test.revealed === true;
}

function inputShapes(test) {
  const shapes = test.input_shapes || {};
  const parts = Object.entries(shapes).map(([name, shape]) => `${name} ${shapeText(shape)}`);
  return parts.length ? parts.join(", ") : "";
}

function testRow(test) {
  const inputs = shown(test) ? inputShapes(test) : "";
  return h("tr", { class: test.passed ? "is-pass" : "is-fail" },
    h("th", { scope: "row" }, test.name),
    h("td", null, test.hidden ? (test.revealed ? "hidden (now shown)" : "hidden") : "visible"),
    h("td", null, h("span", { class: "test-mark", "aria-hidden": "true" }, test.passed ? "✓ " : "✗ "),
      test.passed ? "passed" : `failed: ${test.verdict_label || test.verdict}`),
    h("td", null, test.message || "", inputs ? h("span", { class: "meta test-inputs" }, ` Inputs: ${inputs}.`) : null));
}

function diagnosis(test, open) {
  const body = h("div", { class: "diagnosis" });
  if (test.message) body.append(h("p", null, test.message));
  if (Array.isArray(test.details) && test.details.length) {
    body.append(h("ul", { class: "test-details" }, test.details.map((d) => h("li", null, d))));
  }
  if (test.misconception && test.misconception.hint) {
    body.append(h("div", { class: "admonition tip misconception" },
      h("p", { class: "admonition-title" }, test.misconception.title || "A common mistake"),
      h("p", null, test.misconception.hint)));
  }
  if (shown(test) && (test.expected_shape || test.received_shape)) body.append(tensorFeedback(test));
  return h("details", { class: "test-feedback", open },
    h("summary", null, h("span", { "aria-hidden": "true" }, "✗ "), `${test.name}: failed (${test.verdict_label || test.verdict})`), body);
}

/** The finished report, as one element. */
export function reportView(view) {
  const tests = Array.isArray(view.tests) ? view.tests : [];
  const passed = tests.filter((t) => t.passed).length;
  const ok = view.verdict === "accepted";
  const root = h("section", { class: "report", "aria-labelledby": "verdict-h", "data-verdict": view.verdict || "" });
  root.append(h("h3", { id: "verdict-h", class: `verdict verdict-${ok ? "ok" : "bad"}`, tabindex: "-1" }, view.verdict_label || view.verdict));
  const facts = [];
  if (tests.length) {
    const kind = view.mode === "run" ? "visible tests" : "tests";
    facts.push(`${passed} of ${tests.length} ${kind} passed (score ${Math.round(100 * (view.score || 0))}%)`);
  }
  if (typeof view.duration_ms === "number") facts.push(`graded in ${Math.round(view.duration_ms)} ms`);
  if (view.mode === "run") facts.push("a run: it does not count as an attempt");
  if (facts.length) root.append(h("p", { class: "score" }, facts.join(" · ") + "."));
  if (view.message) root.append(h("p", { class: "report-message" }, view.message));
  // The first failing visible test comes first and open; the others stay folded below it.
  const failing = tests.filter((t) => !t.passed);
  let first = true;
  for (const test of failing) {
    if (!shown(test) && !(test.misconception && test.misconception.hint)) continue;
    root.append(diagnosis(test, first && shown(test)));
    if (shown(test)) first = false;
  }
  if (tests.length) {
    const table = h("div", { class: "table-scroll" }, h("table", { class: "test-table" },
      h("caption", { class: "visually-hidden" }, "Every test with its verdict"),
      h("thead", null, h("tr", null, ["Test", "Kind", "Verdict", "What happened"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", null, tests.map(testRow))));
    const summary = `All ${tests.length} tests: ${passed} passed, ${tests.length - passed} failed`;
    root.append(h("details", { class: "report-more", open: failing.length === 0 }, h("summary", null, summary), table));
  }
  const lab = labFigures(view);
  if (lab) root.append(lab);
  if (view.stdout) {
    root.append(h("h4", null, "What your code printed"), h("pre", { class: "stdout" }, view.stdout));
    if (view.stdout_truncated) root.append(h("p", { class: "meta" }, "The output was cut short: it was longer than the limit."));
  }
  return root;
}

/** Bring the first open failure (or the verdict) into view inside its scrolling pane. */
export function revealFirstFailure(result) {
  const target = result.querySelector(".test-feedback[open]") || result.querySelector("#verdict-h");
  if (target) target.scrollIntoView({ block: "start" });
}
