// The divider between the statement and the workspace: dragged with the pointer or moved with
// the arrow keys, Home and End, so the student picks how much room the task and the code get.
const KEY = "exercise-split-left";
const MIN = 25;
const MAX = 75;
const STEP = 5;

function clamp(value) {
  return Math.min(MAX, Math.max(MIN, Math.round(value)));
}

function stored() {
  try {
    const value = Number(window.localStorage.getItem(KEY));
    return value >= MIN && value <= MAX ? value : null;
  } catch {
    return null; // storage can be blocked; the default width still works
  }
}

/** Insert the separator between the two panes and make it work. */
export function mountSplitter(split) {
  const left = split.querySelector(".pane-statement");
  const right = split.querySelector(".pane-work");
  if (!left || !right) return null;
  const divider = document.createElement("div");
  divider.className = "split-divider";
  divider.id = "split-divider";
  divider.setAttribute("role", "separator");
  divider.setAttribute("aria-orientation", "vertical");
  divider.setAttribute("aria-controls", left.id);
  divider.setAttribute("aria-label", "Width of the task statement (use Left and Right arrows)");
  divider.setAttribute("aria-valuemin", String(MIN));
  divider.setAttribute("aria-valuemax", String(MAX));
  divider.tabIndex = 0;
  split.insertBefore(divider, right);

  function set(value, save) {
    const percent = clamp(value);
    split.style.setProperty("--split-left", `${percent}%`);
    divider.setAttribute("aria-valuenow", String(percent));
    divider.setAttribute("aria-valuetext", `task statement ${percent}% of the width`);
    if (save) {
      try { window.localStorage.setItem(KEY, String(percent)); } catch { /* kept for this page only */ }
    }
  }
  set(stored() ?? 45, false);

  const placeTop = () => split.style.setProperty("--split-top", `${Math.max(0, split.getBoundingClientRect().top + window.scrollY)}px`);
  placeTop();
  window.addEventListener("resize", placeTop);

  divider.addEventListener("keydown", (event) => {
    const now = Number(divider.getAttribute("aria-valuenow"));
    const moves = { ArrowLeft: now - STEP, ArrowRight: now + STEP, Home: MIN, End: MAX };
    if (!(event.key in moves)) return;
    event.preventDefault();
    set(moves[event.key], true);
  });

  divider.addEventListener("pointerdown", (event) => {
    event.preventDefault();
    divider.setPointerCapture(event.pointerId);
    divider.classList.add("is-dragging");
    const box = split.getBoundingClientRect();
    const move = (e) => set(((e.clientX - box.left) / box.width) * 100, false);
    const stop = () => {
      divider.classList.remove("is-dragging");
      divider.removeEventListener("pointermove", move);
      set(Number(divider.getAttribute("aria-valuenow")), true);
    };
    divider.addEventListener("pointermove", move);
    divider.addEventListener("pointerup", stop, { once: true });
    divider.addEventListener("pointercancel", stop, { once: true });
  });
  return divider;
}
