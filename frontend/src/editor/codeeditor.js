// CodeMirror 6 in place of the form's textarea; the textarea stays in the form, kept in sync,
// so a plain form post still works if anything below fails.
//
// The editor lives in a shadow root: CodeMirror injects its styles at run time, and in a shadow
// root it does so with a constructed style sheet, which the site's CSP (no inline <style>)
// allows. Page styles do not reach inside, so every editor style is in `theme` below.
import { EditorView, basicSetup } from "codemirror";
import { python } from "@codemirror/lang-python";
import { Decoration, keymap } from "@codemirror/view";
import { Prec, StateEffect, StateField } from "@codemirror/state";
import { indentWithTab } from "@codemirror/commands";

const setErrorLine = StateEffect.define();
const errorLineMark = Decoration.line({ class: "cm-error-line" });

const errorLine = StateField.define({
  create: () => Decoration.none,
  update(marks, tr) {
    let next = marks.map(tr.changes);
    for (const effect of tr.effects) {
      if (!effect.is(setErrorLine)) continue;
      const n = effect.value;
      next = n && n >= 1 && n <= tr.state.doc.lines
        ? Decoration.set([errorLineMark.range(tr.state.doc.line(n).from)])
        : Decoration.none;
    }
    return next;
  },
  provide: (field) => EditorView.decorations.from(field),
});

const theme = EditorView.theme({
  "&": {
    border: "1px solid #d5dbe5", borderRadius: "6px", fontSize: "0.92rem", background: "#fff",
    color: "#1d2430",
  },
  "&.cm-focused": { outline: "3px solid #f5a623", outlineOffset: "2px" },
  ".cm-scroller": {
    fontFamily: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace',
    minHeight: "16rem",
    maxHeight: "36rem",
  },
  ".cm-error-line": { backgroundColor: "#fbe3e4" },
});

/**
 * Replace `textarea` with an editor.
 * onChange(code) runs after every edit; onRun() on Ctrl/Cmd+Enter.
 * language: "python" (the default) or "text" (markdown, YAML: no highlighting).
 */
export function mountEditor(textarea, { onChange, onRun, label, language = "python" }) {
  const host = document.createElement("div");
  host.className = "code-editor";
  textarea.insertAdjacentElement("afterend", host);
  const root = host.attachShadow({ mode: "open" });
  const view = new EditorView({
    doc: textarea.value,
    parent: root,
    root,
    extensions: [
      Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => { onRun(); return true; } }])),
      basicSetup,
      keymap.of([indentWithTab]),
      language === "python" ? python() : [],
      errorLine,
      theme,
      // aria-labelledby cannot point out of a shadow root, so the label is repeated here.
      // tabindex tells checkers (axe) that the scrolling editor is reachable by keyboard.
      EditorView.contentAttributes.of({ "aria-label": label, tabindex: "0" }),
      EditorView.updateListener.of((update) => {
        if (!update.docChanged) return;
        textarea.value = update.state.doc.toString();
        onChange(textarea.value);
      }),
    ],
  });
  textarea.hidden = true;
  textarea.setAttribute("aria-hidden", "true");
  textarea.tabIndex = -1;
  return {
    view,
    getCode: () => view.state.doc.toString(),
    setCode(code) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: code } });
    },
    markLine(line) {
      const effects = [setErrorLine.of(line || null)];
      if (line && line >= 1 && line <= view.state.doc.lines) {
        effects.push(EditorView.scrollIntoView(view.state.doc.line(line).from, { y: "center" }));
      }
      view.dispatch({ effects });
    },
    focus: () => view.focus(),
  };
}
