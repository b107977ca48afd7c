// Live plot controls. Without this file the form still works: "Update" opens the new SVG.
// With it, changing a number redraws the picture in place and shows the server's reason
// when the numbers are out of range.

const DELAY_MS = 200;

/** The SVG address for the form's current values (hidden inputs carry the fixed parameters). */
function plotUrl(form) {
  const query = new URLSearchParams(new FormData(form)).toString();
  return `${form.getAttribute("action")}?${query}`;
}

/** The server answers 422 with {"detail": "..."}; anything else gets a general message. */
async function reasonFrom(response) {
  try {
    const body = await response.json();
    if (typeof body.detail === "string") return body.detail;
  } catch {
    // not JSON: fall through to the general message
  }
  return `The plot could not be drawn (the server answered ${response.status}).`;
}

function enhance(form) {
  const figure = form.closest("figure");
  const image = figure && figure.querySelector("img.plot-image");
  if (!image) return;
  const status = document.createElement("p");
  status.className = "plot-status";
  status.setAttribute("role", "status");
  status.setAttribute("aria-live", "polite");
  form.appendChild(status);

  let timer = 0;
  let latest = 0;

  async function redraw() {
    const url = plotUrl(form);
    const ticket = ++latest;
    form.setAttribute("aria-busy", "true");
    try {
      const response = await fetch(url, { headers: { Accept: "image/svg+xml" } });
      if (ticket !== latest) return; // a newer change is already on its way
      if (response.ok) {
        image.src = url; // same URL: the browser reuses the response it just cached
        image.classList.remove("plot-stale");
        status.textContent = "";
      } else {
        image.classList.add("plot-stale");
        status.textContent = await reasonFrom(response);
      }
    } catch {
      if (ticket === latest) {
        image.classList.add("plot-stale");
        status.textContent = "Could not reach the server to redraw the plot. Try again.";
      }
    } finally {
      if (ticket === latest) form.removeAttribute("aria-busy");
    }
  }

  form.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(redraw, DELAY_MS);
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    clearTimeout(timer);
    redraw();
  });
}

document.addEventListener("DOMContentLoaded", () => {
  for (const form of document.querySelectorAll("form.plot-controls[data-plot]")) enhance(form);
});
