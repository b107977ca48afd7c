// The exercise page's editor: progressive enhancement of the plain form in exercise.html.
// Run/Submit go through the API and the verdict appears below the editor without a reload.
import { h } from "./dom.js";
import { mountEditor } from "./codeeditor.js";
import { DraftKeeper } from "./drafts.js";
import { detailOf, follow, FollowError, sendSubmission } from "./net.js";
import { reportView, revealFirstFailure, statusWords } from "./report.js";
import { mountSplitter } from "./splitter.js";
import { TrainingView } from "./training.js";

function start() {
  const form = document.getElementById("code-form");
  const textarea = document.getElementById("code");
  if (!form || !textarea || !window.fetch || !window.Promise) return;
  const result = document.getElementById("result");
  const runStatus = document.getElementById("run-status");
  const saveStatus = document.getElementById("save-status");
  const buttons = [...form.querySelectorAll("button[data-mode]")];
  const { exercise, framework, user, source, loginUrl } = form.dataset;
  const split = document.getElementById("exercise-split");
  if (split) mountSplitter(split);
  let busy = false;

  const sessionEnded = () => h("div", { class: "form-errors session-ended", role: "alert" },
    user
      ? h("p", null, "Your session has ended. ", h("a", { href: loginUrl }, "Log in again"),
        " (your code is saved in this browser and comes back after you log in).")
      : h("p", null, "You need to ", h("a", { href: loginUrl }, "log in"),
        " to run your code. It is kept in this browser and comes back after you log in."));

  const drafts = new DraftKeeper({
    exercise, framework, user,
    onStatus(text, kind) {
      if (kind === "session") {
        saveStatus.replaceChildren("Your session has ended, so this draft is kept in this browser only. ",
          h("a", { href: loginUrl }, "Log in again"), " to save it to your account.");
      } else {
        saveStatus.replaceChildren(text);
      }
      saveStatus.dataset.kind = kind === "ok" ? "ok" : "warn";
    },
  });
  const editor = mountEditor(textarea, {
    label: `${document.getElementById("code-label").textContent.trim()}. Ctrl+Enter or Cmd+Enter runs the visible tests; Escape then Tab leaves the editor.`,
    onChange: (code) => drafts.changed(code),
    onRun: () => go("run"),
  });
  form.classList.add("enhanced");
  document.getElementById("code-label").addEventListener("click", () => editor.focus());

  const { savedAt } = form.dataset;
  drafts.adopt(textarea.value, source === "draft", savedAt);
  // An earlier submission opened on purpose wins; otherwise unsaved work in this browser does.
  const local = source === "submission" ? null : drafts.unsavedLocal(textarea.value, savedAt);
  if (local !== null) {
    editor.setCode(local); // also queues a save to the account
    drafts.forgetVisitorCopy();
    saveStatus.textContent = "Restored changes kept in this browser that had not reached your account yet.";
  }

  function setBusy(value) {
    busy = value;
    form.setAttribute("aria-busy", value ? "true" : "false");
    for (const button of buttons) button.disabled = value;
  }

  function problem(...content) {
    runStatus.textContent = "";
    result.replaceChildren(h("div", { class: "form-errors", role: "alert" }, h("p", null, ...content)));
  }

  async function go(mode) {
    if (busy) return;
    setBusy(true);
    const started = performance.now();
    const code = editor.getCode();
    editor.markLine(null);
    runStatus.textContent = statusWords("sending");
    result.replaceChildren();
    result.removeAttribute("data-elapsed-ms");
    drafts.changed(code);
    drafts.saveNow(code);
    try {
      let response;
      try {
        response = await sendSubmission({ exercise, framework, mode, code });
      } catch {
        problem("Could not reach the server, so nothing was run. Your code is kept here; check your connection and try again.");
        return;
      }
      if (response.status === 401) {
        runStatus.textContent = "";
        result.replaceChildren(sessionEnded());
        return;
      }
      if (response.status === 403) {
        problem("This page is out of date (its security token no longer matches your login). Reload the page; your code is kept in this browser.");
        return;
      }
      if (!response.ok) {
        problem(await detailOf(response));
        return;
      }
      const { id } = await response.json();
      result.dataset.submission = String(id);
      let view;
      try {
        let training = null;
        view = await follow(id, (update) => {
          if (update.status !== "done") runStatus.textContent = statusWords(update.status);
          if (update.status === "running" && update.progress) {
            training = training || new TrainingView(result, id);
            training.update(update.progress);
          }
        });
      } catch (error) {
        if (error instanceof FollowError && error.status === 401) {
          runStatus.textContent = "";
          result.replaceChildren(sessionEnded());
        } else {
          problem(`Your code was sent (number ${id}) but its result could not be fetched: ${error.message} Reload the page to see it in your submissions.`);
        }
        return;
      }
      const elapsed = Math.round(performance.now() - started);
      runStatus.textContent = `${view.verdict_label || view.verdict}.`;
      result.replaceChildren(reportView(view));
      revealFirstFailure(result);
      // A submit by button disables it and drops the focus; put it on the verdict so a keyboard
      // user goes on from the report, not from the top of the page. A run from the editor stays.
      const active = document.activeElement;
      if (!active || active === document.body || active.disabled) {
        const heading = document.getElementById("verdict-h");
        if (heading) heading.focus({ preventScroll: true });
      }
      result.dataset.elapsedMs = String(elapsed);
      if (view.verdict === "syntax_error" && view.line) editor.markLine(view.line);
    } finally {
      setBusy(false);
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const mode = event.submitter && event.submitter.dataset.mode === "run" ? "run" : "submit";
    go(mode);
  });
  // Ctrl/Cmd+Enter also works when focus is on the buttons or elsewhere in the form.
  form.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.defaultPrevented) {
      event.preventDefault();
      go("run");
    }
  });
  window.addEventListener("pagehide", () => { drafts.saveNow(); });
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
