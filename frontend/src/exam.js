// A running exam: every answer is saved on the server as it changes, the clock shows the time
// left, and the attempt is handed in when it reaches zero. Without this file the page's form
// still saves and hands in (the server enforces the deadline either way).

const SAVE_DELAY_MS = 500;
const RETRY_MS = 3000;
const FINAL_FLUSH_MS = 1500;

function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.getAttribute("content") || "" : "";
}

async function detailOf(response) {
  try {
    const body = await response.json();
    if (typeof body.detail === "string") return body.detail;
  } catch {
    // not JSON
  }
  return `the server answered ${response.status}`;
}

function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

function valueOf(item) {
  const code = item.querySelector("textarea");
  if (code) {
    const framework = item.querySelector("select");
    return { framework: framework ? framework.value : "", code: code.value };
  }
  const boxes = item.querySelectorAll('input[type="checkbox"]');
  if (boxes.length) return [...boxes].filter((b) => b.checked).map((b) => b.value);
  const radios = item.querySelectorAll('input[type="radio"]');
  if (radios.length) {
    const chosen = [...radios].find((r) => r.checked);
    return chosen ? chosen.value : null;
  }
  const text = item.querySelector('input[type="text"]');
  return text ? text.value : null;
}

function restore(item, value) {
  const code = item.querySelector("textarea");
  if (code && value && typeof value === "object" && !Array.isArray(value)) {
    code.value = value.code;
    const framework = item.querySelector("select");
    if (framework) framework.value = value.framework;
    return;
  }
  for (const input of item.querySelectorAll("input[type=checkbox], input[type=radio]")) {
    input.checked = Array.isArray(value) ? value.includes(input.value) : input.value === value;
  }
  const text = item.querySelector('input[type="text"]');
  if (text && typeof value === "string") text.value = value;
}

function startExam(form) {
  const id = form.dataset.exam;
  const deadline = Date.parse(form.dataset.deadline);
  const offset = Date.parse(form.dataset.now) - Date.now(); // server clock minus ours
  const clock = document.getElementById("exam-clock");
  const status = document.getElementById("exam-save-status");
  const storeKey = `exam-${id}-pending`;
  const items = new Map([...form.querySelectorAll("[data-item]")].map((el) => [el.dataset.item, el]));
  let pending = {};
  try {
    pending = JSON.parse(localStorage.getItem(storeKey) || "{}");
  } catch {
    pending = {};
  }
  let timer = null;
  let sending = false;
  let over = false;

  const say = (text) => { status.textContent = text; };
  const keep = () => {
    try {
      localStorage.setItem(storeKey, JSON.stringify(pending));
    } catch {
      // private mode: the server copy is what counts
    }
  };
  const finished = () => {
    over = true;
    try { localStorage.removeItem(storeKey); } catch { /* nothing kept */ }
    window.location.reload();
  };

  async function flush() {
    if (sending || over) return;
    const keys = Object.keys(pending);
    if (!keys.length) return;
    sending = true;
    try {
      for (const key of keys) {
        const value = pending[key];
        const response = await fetch(`/api/assessments/attempts/${id}/answers`, {
          method: "PUT",
          headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken() },
          credentials: "same-origin",
          body: JSON.stringify({ item: key, value }),
        });
        if (response.status === 409) {
          say(await detailOf(response));
          finished();
          return;
        }
        if (!response.ok) {
          say(`This answer was not saved: ${await detailOf(response)}`);
          delete pending[key];
          keep();
          sending = false;
          return;
        }
        if (JSON.stringify(pending[key]) === JSON.stringify(value)) delete pending[key];
        keep();
      }
      say(`All answers saved on the server at ${new Date().toLocaleTimeString()}.`);
    } catch {
      say("Connection lost: your answers are kept in this browser and sent when it is back.");
      sending = false;
      schedule(RETRY_MS);
      return;
    }
    sending = false;
    if (Object.keys(pending).length && !timer) schedule(SAVE_DELAY_MS);
  }

  function schedule(ms) {
    clearTimeout(timer);
    timer = setTimeout(() => { timer = null; flush(); }, ms);
  }

  function changed(event) {
    const item = event.target.closest("[data-item]");
    if (!item || over) return;
    pending[item.dataset.item] = valueOf(item);
    keep();
    say("Saving…");
    schedule(SAVE_DELAY_MS);
  }

  async function handIn() {
    over = true;
    say("Time is up: handing in your answers…");
    try {
      await fetch(`/api/assessments/attempts/${id}/submit`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken() },
        credentials: "same-origin",
        body: JSON.stringify({ reason: "time" }),
      });
    } catch {
      // the server hands it in on the next read anyway
    }
    finished();
  }

  let finalFlush = false;
  function tick() {
    const left = deadline - (Date.now() + offset);
    clock.textContent = clockText(left);
    clock.dataset.secondsLeft = String(Math.max(0, Math.ceil(left / 1000)));
    if (left <= FINAL_FLUSH_MS && !finalFlush) {
      finalFlush = true;
      clearTimeout(timer);
      timer = null;
      flush();
    }
    if (left <= 0 && !over) {
      handIn();
      return;
    }
    setTimeout(tick, 250);
  }

  // Answers typed while offline before a reload come back from this browser and are sent.
  for (const [key, value] of Object.entries(pending)) {
    const item = items.get(key);
    if (item) restore(item, value);
    else delete pending[key];
  }
  form.addEventListener("input", changed);
  form.addEventListener("change", changed);
  window.addEventListener("online", flush);
  form.dataset.examReady = "true";
  tick();
  flush();
}

document.addEventListener("DOMContentLoaded", () => {
  const form = document.querySelector("form[data-exam]");
  if (form) startExam(form);
});
