// LTI platform storage (1EdTech "LTI Client Side postMessages"): where an LMS frame blocks the
// course's cookies, the OIDC state is kept by the LMS page instead, through postMessage.
// Login: store the state with the LMS, then go on to its authorization endpoint.
// Launch without the cookie: read the state back and post it to the course, which accepts the
// launch only if it matches. Messages go only to, and are accepted only from, the LMS origin.

const ANSWER_MS = 5000;
const CAPABILITIES_MS = 1500;

function newId() {
  if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
  return `${Date.now()}-${Math.random().toString(16).slice(2)}`;
}

/** The window that holds the platform storage: "_parent", or a named frame of the parent. */
function storageWindow(name) {
  const parent = window.parent !== window ? window.parent : window.opener;
  if (!parent) return null;
  if (name === "_parent") return parent;
  try {
    return parent.frames[name] || null;
  } catch {
    return null;
  }
}

/** Send one message and wait for its matching ".response" from the LMS origin. */
function ask(target, origin, message, waitMs) {
  return new Promise((resolve, reject) => {
    const id = newId();
    const timer = setTimeout(() => {
      window.removeEventListener("message", listen);
      reject(new Error("the LMS did not answer"));
    }, waitMs);
    function listen(event) {
      const data = event.data;
      if (event.origin !== origin || !data || typeof data !== "object") return;
      if (data.message_id !== id || data.subject !== `${message.subject}.response`) return;
      clearTimeout(timer);
      window.removeEventListener("message", listen);
      if (data.error) reject(new Error(data.error.message || data.error.code || "refused"));
      else resolve(data);
    }
    window.addEventListener("message", listen);
    target.postMessage({ ...message, message_id: id }, origin);
  });
}

/** The frame that answers `subject`: from lti.capabilities if the LMS says, else the hint. */
async function frameFor(origin, hint, subject) {
  const parent = storageWindow("_parent");
  if (!parent) return storageWindow(hint);
  try {
    const answer = await ask(parent, origin, { subject: "lti.capabilities" }, CAPABILITIES_MS);
    const offered = (answer.supported_messages || []).find((m) => m && m.subject === subject);
    if (!offered) return null;
    return storageWindow(offered.frame || hint);
  } catch {
    return storageWindow(hint); // an LMS without lti.capabilities: trust lti_storage_target
  }
}

async function login(root) {
  const { target, origin, state, redirect } = root.dataset;
  try {
    const frame = await frameFor(origin, target, "lti.put_data");
    if (frame) {
      const message = { subject: "lti.put_data", key: `state_${state}`, value: state };
      await ask(frame, origin, message, ANSWER_MS);
    }
  } catch {
    // Not stored: the cookie may still carry the state; the launch decides.
  }
  window.location.replace(redirect);
}

async function check(root) {
  const { target, origin, state } = root.dataset;
  const form = document.getElementById("lti-storage-form");
  try {
    const frame = await frameFor(origin, target, "lti.get_data");
    if (!frame) throw new Error("this LMS offers no storage");
    const message = { subject: "lti.get_data", key: `state_${state}` };
    const answer = await ask(frame, origin, message, ANSWER_MS);
    if (typeof answer.value !== "string" || !answer.value) throw new Error("nothing stored");
    form.elements.storage_state.value = answer.value;
    form.submit();
  } catch {
    document.getElementById("lti-storage-wait").hidden = true;
    document.getElementById("lti-storage-failed").hidden = false;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("lti-storage");
  if (!root) return;
  if (root.dataset.ltiStorage === "login") login(root);
  else if (root.dataset.ltiStorage === "check") check(root);
});
