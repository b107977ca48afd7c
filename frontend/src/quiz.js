// Quiz enhancement: submit without leaving the page and swap in the graded results.
// Without JavaScript the form posts normally and the server redirects back to #quiz.

function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.getAttribute("content") || "" : "";
}

/** Replace the quiz section with the one from a freshly rendered lesson page. */
function swapSection(current, html) {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const fresh = doc.getElementById("quiz");
  if (!fresh) return false;
  current.replaceWith(document.importNode(fresh, true));
  const heading = document.getElementById("quiz-h");
  if (heading) heading.focus();
  enhance();
  return true;
}

async function submitQuiz(event) {
  const form = event.currentTarget;
  const section = form.closest("#quiz");
  if (!section || !window.fetch || !window.DOMParser) return;
  event.preventDefault();
  const button = form.querySelector('button[type="submit"]');
  if (button) {
    button.disabled = true;
    button.textContent = "Checking…";
  }
  let response;
  try {
    response = await fetch(form.action, {
      method: "POST",
      body: new URLSearchParams(new FormData(form)),
      headers: { "X-CSRF-Token": csrfToken(), Accept: "text/html" },
      credentials: "same-origin",
    });
  } catch {
    form.submit(); // network trouble: the ordinary post shows what went wrong
    return;
  }
  if (!response.ok) {
    form.submit(); // nothing was stored; let the server's error page explain
    return;
  }
  const onLesson = new URL(response.url).pathname === window.location.pathname;
  if (onLesson && swapSection(section, await response.text())) {
    history.replaceState(null, "", window.location.pathname + "#quiz");
    return;
  }
  window.location.assign(response.url); // e.g. the login page for a visitor
}

function enhance() {
  for (const form of document.querySelectorAll("#quiz form.quiz-form")) {
    if (form.dataset.enhanced) continue;
    form.dataset.enhanced = "1";
    form.addEventListener("submit", submitQuiz);
  }
}

document.addEventListener("DOMContentLoaded", enhance);
