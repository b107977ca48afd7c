// Drafts: a copy in this browser on every edit (survives going offline or an ended session),
// and a save to the account about a second after typing stops, on Run/Submit, and on leaving.

import { courseBase, csrfToken, detailOf } from "./net.js";

const DEBOUNCE_MS = 1000;

export class DraftKeeper {
  /**
   * exercise, framework, user: from the form's data attributes (user is "" for a visitor).
   * onStatus(text, kind): shows how safe the code is; kind is "ok", "warn" or "session".
   */
  constructor({ exercise, framework, user, onStatus }) {
    this.exercise = exercise;
    this.framework = framework;
    this.user = user;
    this.onStatus = onStatus;
    // Another course may have an exercise of this slug: its copies carry its address (the
    // first course's, at "", keep the keys they always had).
    const course = courseBase() ? `${courseBase()}:` : "";
    this.key = `posembed:draft:${user || "visitor"}:${course}${exercise}:${framework}`;
    this.visitorKey = `posembed:draft:visitor:${course}${exercise}:${framework}`;
    this.timer = null;
    this.latest = null;
    this.savedCode = null;
  }

  readLocal(key = this.key) {
    try {
      const raw = window.localStorage.getItem(key);
      const entry = raw ? JSON.parse(raw) : null;
      return entry && typeof entry.code === "string" ? entry : null;
    } catch {
      return null;
    }
  }

  writeLocal(code, synced) {
    try {
      window.localStorage.setItem(this.key, JSON.stringify({ code, synced, at: Date.now() }));
    } catch {
      // storage full or disabled: the server copy still works
    }
  }

  /**
   * Code kept in this browser that never reached the account, differs from the page's, and is
   * newer than the server's copy (serverSavedAt, ISO time, may be empty). Once logged in, code
   * written here as a visitor counts too (it is handed over by forgetVisitorCopy()).
   */
  unsavedLocal(pageCode, serverSavedAt = "") {
    const serverTime = serverSavedAt ? Date.parse(serverSavedAt) : NaN;
    for (const key of this.user ? [this.key, this.visitorKey] : [this.key]) {
      const entry = this.readLocal(key);
      if (!entry || entry.synced || entry.code === pageCode) continue;
      if (Number.isFinite(serverTime) && typeof entry.at === "number" && entry.at < serverTime) continue;
      return entry.code;
    }
    return null;
  }

  /** The visitor's copy now belongs to the account: drop it so it is not offered twice. */
  forgetVisitorCopy() {
    if (!this.user) return;
    try { window.localStorage.removeItem(this.visitorKey); } catch { /* storage disabled */ }
  }

  /** The page's code is what the server holds: remember that, unless this browser has newer. */
  adopt(pageCode, fromServer, serverSavedAt) {
    this.savedCode = fromServer ? pageCode : null;
    if (fromServer && this.unsavedLocal(pageCode, serverSavedAt) === null) this.writeLocal(pageCode, true);
  }

  changed(code) {
    this.latest = code;
    this.writeLocal(code, false);
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.saveNow(), DEBOUNCE_MS);
  }

  /** Save to the account now; resolves to true when the server has this code. */
  async saveNow(code = this.latest) {
    window.clearTimeout(this.timer);
    if (code === null) return true;
    if (!this.user) {
      this.onStatus("Kept in this browser only: log in to save it to your account.", "warn");
      return false;
    }
    if (code === this.savedCode) return true;
    const url = `${courseBase()}/api/drafts/${encodeURIComponent(this.exercise)}?framework=${encodeURIComponent(this.framework)}`;
    let response;
    try {
      response = await fetch(url, {
        method: "PUT",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken() },
        credentials: "same-origin",
        body: JSON.stringify({ code }),
      });
    } catch {
      this.onStatus("Offline: your code is kept in this browser and saved when you are back.", "warn");
      this.timer = window.setTimeout(() => this.saveNow(), 10 * DEBOUNCE_MS);
      return false;
    }
    if (response.ok) {
      this.savedCode = code;
      if (this.latest === code) this.writeLocal(code, true);
      this.onStatus("Draft saved to your account.", "ok");
      return true;
    }
    if (response.status === 401) {
      this.onStatus("", "session");
    } else {
      const detail = await detailOf(response);
      this.onStatus(`Not saved to your account: ${detail} It is kept in this browser.`, "warn");
    }
    return false;
  }
}
