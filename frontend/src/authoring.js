// The authoring editor: CodeMirror in place of each `textarea[data-code-editor]` (a file being
// edited, or the code run in a preview). The textarea stays in its form, kept in sync, so the
// form posts as it does without JavaScript; Ctrl/Cmd+Enter submits it.
import { mountEditor } from "./editor/codeeditor.js";

function mount(textarea) {
  const form = textarea.form;
  const editor = mountEditor(textarea, {
    label: textarea.dataset.label || "File text",
    language: textarea.dataset.codeEditor || "python",
    onChange: () => {
      if (form) form.dataset.dirty = "1";
    },
    onRun: () => {
      if (form) form.requestSubmit();
    },
  });
  const line = Number(textarea.dataset.problemLine || 0);
  if (line) editor.markLine(line);
  // Links "line N" beside a problem move the editor to that line.
  for (const link of document.querySelectorAll("a[data-goto-line]")) {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      editor.markLine(Number(link.dataset.gotoLine));
      editor.focus();
    });
  }
  if (form) {
    form.addEventListener("submit", () => {
      delete form.dataset.dirty;
    });
    window.addEventListener("beforeunload", (event) => {
      if (form.dataset.dirty) event.preventDefault();
    });
  }
  textarea.closest("form")?.classList.add("has-code-editor");
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A job the page shows (a preview's run, a draft's grading check) is followed at its JSON
// address; once it is done the page's own fresh copy of that element replaces it, so nothing
// typed in the editor is lost. Without JavaScript the run's page refreshes itself instead.
async function follow(element, url) {
  let wait = 400;
  for (;;) {
    await sleep(wait);
    wait = Math.min(wait * 1.5, 3000);
    let state;
    try {
      const answer = await fetch(url, { headers: { Accept: "application/json" } });
      if (!answer.ok) return;
      state = (await answer.json()).state;
    } catch {
      continue; // the network blinked: ask again
    }
    if (state === "done" || state === "failed") break;
  }
  const page = await fetch(window.location.href, { headers: { Accept: "text/html" } });
  if (!page.ok) return;
  const fresh = new DOMParser()
    .parseFromString(await page.text(), "text/html")
    .getElementById(element.id);
  if (fresh) element.replaceWith(document.importNode(fresh, true));
}

function start() {
  for (const textarea of document.querySelectorAll("textarea[data-code-editor]")) mount(textarea);
  for (const element of document.querySelectorAll("[data-run-poll]"))
    follow(element, element.dataset.runPoll);
  for (const element of document.querySelectorAll("[data-check-poll]"))
    follow(element, element.dataset.checkPoll);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
