import "./quiz.js";
import "./plots.js";
import "./instructor.js";
import "./exam.js";

// Progressive enhancement only: every page works without this file.

/** Copy buttons on code blocks, so students can paste examples into their editor. */
function addCopyButtons() {
  for (const pre of document.querySelectorAll(".prose pre")) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy this code");
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(pre.innerText.replace(/\nCopy$/, ""));
        button.textContent = "Copied";
      } catch {
        button.textContent = "Select and copy";
      }
      setTimeout(() => { button.textContent = "Copy"; }, 1500);
    });
    pre.classList.add("has-copy");
    pre.appendChild(button);
  }
}

document.addEventListener("DOMContentLoaded", addCopyButtons);
