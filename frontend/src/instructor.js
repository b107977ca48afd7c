// Instructor pages: sort and filter the gradebook in place, follow a regrade's progress.
// Progressive enhancement only: without this file the links sort on the server, the filter
// form reloads the page, and the regrade button posts a form.
import { tensorFeedback } from "./editor/heatmap.js";

/** Sort the gradebook's rows by one column's data-value, without a page load. */
function enableGradebookSort(table) {
  const body = table.tBodies[0];
  for (const link of table.querySelectorAll("thead a[data-sort-key]")) {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      const key = link.dataset.sortKey;
      const header = link.closest("th");
      const descending = header.getAttribute("aria-sort") === "ascending";
      for (const th of table.querySelectorAll("thead th[aria-sort]")) th.removeAttribute("aria-sort");
      header.setAttribute("aria-sort", descending ? "descending" : "ascending");
      const rows = Array.from(body.rows);
      const valueOf = (row) => {
        const cell = row.querySelector(`[data-key="${CSS.escape(key)}"]`);
        const raw = cell ? cell.dataset.value : "";
        const number = Number(raw);
        return raw !== "" && !Number.isNaN(number) ? number : raw;
      };
      rows.sort((a, b) => {
        const x = valueOf(a);
        const y = valueOf(b);
        const order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
        return descending ? -order : order;
      });
      for (const row of rows) body.appendChild(row);
      const url = new URL(window.location.href);
      url.searchParams.set("sort", key);
      url.searchParams.set("order", descending ? "desc" : "asc");
      window.history.replaceState(null, "", url);
    });
  }
}

/** Hide rows whose student name or email does not contain the typed text. */
function enableGradebookFilter(table, input) {
  const count = document.querySelector("[data-gradebook-count]");
  const apply = () => {
    const needle = input.value.trim().toLowerCase();
    let shown = 0;
    for (const row of table.tBodies[0].rows) {
      const match = !needle || (row.dataset.student || "").includes(needle);
      row.hidden = !match;
      if (match) shown += 1;
    }
    if (count) count.textContent = needle ? `${shown} of ${table.tBodies[0].rows.length} students shown` : "";
  };
  input.addEventListener("input", apply);
}

function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
}

/** Show a regrade's progress: done/total in a <progress>, a sentence, the failures. */
function showRegrade(box, job) {
  box.replaceChildren();
  if (job.status === "none") return;
  const bar = document.createElement("progress");
  bar.max = job.total || 1;
  bar.value = job.done;
  bar.textContent = `${job.done} / ${job.total}`;
  const text = document.createElement("span");
  const words = { queued: "Queued", running: "Re-grading", done: "Done", failed: "Failed", interrupted: "Interrupted" };
  let sentence = `${words[job.status] || job.status}: ${job.done} / ${job.total} submissions`;
  if (job.changed) sentence += `, ${job.changed} score${job.changed === 1 ? "" : "s"} changed`;
  if (job.failed) sentence += `, ${job.failed} could not be re-graded`;
  text.textContent = `${sentence}.`;
  box.append(bar, " ", text);
}

function enableRegrade(form) {
  const slug = form.dataset.regrade;
  // The page names the URL: under /offerings/{id}/ it is that offering's (the check is its).
  const url = form.dataset.regradeUrl || `/api/exercises/${encodeURIComponent(slug)}/regrade`;
  const box = form.querySelector("[data-regrade-status]");
  const button = form.querySelector("button[type=submit]");
  box.setAttribute("aria-live", "polite");

  async function poll() {
    try {
      const response = await fetch(url, { headers: { accept: "application/json" } });
      if (!response.ok) throw new Error(`status ${response.status}`);
      const job = await response.json();
      showRegrade(box, job);
      if (job.status === "queued" || job.status === "running") {
        setTimeout(poll, 1000);
        return;
      }
      button.disabled = false;
      if (job.status === "done" || job.status === "interrupted") {
        button.textContent = job.status === "done" ? "Re-grade all submissions" : "Resume the re-grade";
      }
    } catch (error) {
      box.textContent = `Could not read the progress (${error.message}); reload the page to see it.`;
      button.disabled = false;
    }
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    button.disabled = true;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { accept: "application/json", "x-csrf-token": csrfToken() },
      });
      if (!response.ok) {
        const body = await response.json().catch(() => ({}));
        throw new Error(body.detail || `status ${response.status}`);
      }
      showRegrade(box, await response.json());
      setTimeout(poll, 500);
    } catch (error) {
      box.textContent = `The re-grade did not start: ${error.message}`;
      button.disabled = false;
    }
  });
  if (button.disabled) setTimeout(poll, 1000); // a regrade was already running at page load
}

document.addEventListener("DOMContentLoaded", () => {
  const table = document.querySelector("table[data-gradebook]");
  if (table) {
    enableGradebookSort(table);
    const input = document.querySelector("[data-gradebook-filter]");
    if (input) enableGradebookFilter(table, input);
  }
  for (const form of document.querySelectorAll("form[data-regrade]")) enableRegrade(form);
  // A cluster's heatmap: the same drawing students get beside a failing test.
  for (const box of document.querySelectorAll("[data-tensor-feedback]")) {
    try {
      box.append(tensorFeedback(JSON.parse(box.dataset.tensorFeedback)));
    } catch (error) {
      console.warn("heatmap not drawn", error);
    }
  }
});
