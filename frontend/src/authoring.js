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

function start() {
  for (const textarea of document.querySelectorAll("textarea[data-code-editor]")) mount(textarea);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
