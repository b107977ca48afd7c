// Talking to the submissions API: send a run or a submit, then follow its status to the verdict.

const POLL_MS = 500;

export function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.getAttribute("content") || "" : "";
}

/** The plain message of an error response (FastAPI puts it in "detail"). */
export async function detailOf(response) {
  try {
    const body = await response.json();
    if (typeof body.detail === "string") return body.detail;
    if (Array.isArray(body.detail) && body.detail[0] && body.detail[0].msg) return body.detail[0].msg;
  } catch {
    // not JSON
  }
  return response.statusText || `the server answered ${response.status}`;
}

function clickKey() {
  if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
  return `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/** Where the page's course starts ("" for the first course, "/courses/<slug>" for others). */
export function courseBase() {
  return (document.body && document.body.dataset.courseBase) || "";
}

/** POST /api/submissions; resolves to the fetch Response (throws only on network failure). */
export function sendSubmission({ exercise, framework, mode, code }) {
  return fetch(`${courseBase()}/api/submissions`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-CSRF-Token": csrfToken(),
      "Idempotency-Key": clickKey(),
    },
    credentials: "same-origin",
    body: JSON.stringify({ exercise, framework, mode, code }),
  });
}

export class FollowError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * Follow a submission until it is done: Server-Sent Events first, polling every 500 ms if the
 * stream cannot open or stops early. onUpdate(view) gets every status; resolves to the last view.
 */
export function follow(id, onUpdate) {
  return new Promise((resolve, reject) => {
    let finished = false;
    const finish = (view) => {
      if (finished) return;
      finished = true;
      resolve(view);
    };
    const poll = async () => {
      let failures = 0;
      while (!finished) {
        let response = null;
        try {
          response = await fetch(`${courseBase()}/api/submissions/${id}`, {
            credentials: "same-origin",
            headers: { Accept: "application/json" },
            cache: "no-store",
          });
        } catch {
          failures += 1;
          if (failures > 120) {
            finished = true;
            reject(new FollowError(0, "The connection to the server was lost."));
            return;
          }
        }
        if (response && !response.ok) {
          finished = true;
          reject(new FollowError(response.status, await detailOf(response)));
          return;
        }
        if (response) {
          const view = await response.json();
          onUpdate(view);
          if (view.status === "done") { finish(view); return; }
        }
        await new Promise((r) => window.setTimeout(r, POLL_MS));
      }
    };
    if (!window.EventSource) { poll(); return; }
    const source = new EventSource(`${courseBase()}/api/submissions/${id}/events`);
    source.addEventListener("status", (event) => {
      let view;
      try { view = JSON.parse(event.data); } catch { return; }
      onUpdate(view);
      if (view.status === "done") {
        source.close();
        finish(view);
      }
    });
    source.onerror = () => {
      source.close();
      if (!finished) poll();
    };
  });
}
