// An experiment while it trains: a progress bar, the loss so far as a line, and a Stop button.
// It lives in the result area until the report replaces it.
import { h, svg } from "./dom.js";
import { courseBase, csrfToken, detailOf } from "./net.js";

const W = 320;
const H = 90;

function lossPath(points) {
  const top = Math.max(...points.map((p) => p.loss), 1e-9);
  const last = Math.max(points[points.length - 1].steps, 1);
  return points
    .map((p) => `${((p.step / last) * W).toFixed(1)},${(H - 4 - (p.loss / top) * (H - 8)).toFixed(1)}`)
    .join(" ");
}

export class TrainingView {
  constructor(container, submissionId) {
    this.id = submissionId;
    this.points = [];
    this.bar = h("progress", { max: "1", value: "0", "aria-labelledby": "training-words" });
    this.words = h("p", { id: "training-words", class: "meta" }, "Training is starting…");
    this.line = svg("polyline", { fill: "none", stroke: "currentColor", "stroke-width": "2", points: "" });
    this.chart = svg(
      "svg",
      { viewBox: `0 0 ${W} ${H}`, class: "training-loss", role: "img", "aria-label": "Training loss so far" },
      svg("line", { x1: "0", y1: String(H - 4), x2: String(W), y2: String(H - 4), stroke: "#767676" }),
      this.line,
    );
    this.button = h("button", { type: "button", class: "button button-secondary" }, "Stop training");
    this.note = h("p", { class: "meta", role: "status", "aria-live": "polite" });
    this.button.addEventListener("click", () => this.stop());
    this.root = h(
      "section",
      { class: "training", "aria-label": "Training in progress" },
      this.words,
      this.bar,
      this.chart,
      h("p", null, this.button),
      this.note,
    );
    container.replaceChildren(this.root);
  }

  update(progress) {
    const { step, steps, loss } = progress;
    if (!steps) return;
    const previous = this.points[this.points.length - 1];
    if (!previous || previous.step !== step) this.points.push({ step, steps, loss: Number.isFinite(loss) ? loss : 0 });
    this.bar.max = String(steps);
    this.bar.value = String(step);
    const lossText = Number.isFinite(loss) ? loss.toFixed(3) : "not a number";
    this.words.textContent = `Step ${step} of ${steps}: the loss is ${lossText}.`;
    if (this.points.length > 1) {
      this.line.setAttribute("points", lossPath(this.points));
      const first = this.points[0].loss.toFixed(3);
      this.chart.setAttribute("aria-label", `Training loss so far: from ${first} at the start to ${lossText} now`);
    }
  }

  async stop() {
    this.button.disabled = true;
    this.note.textContent = "Stopping…";
    let response;
    try {
      response = await fetch(`${courseBase()}/api/submissions/${this.id}/stop`, {
        method: "POST",
        headers: { "X-CSRF-Token": csrfToken() },
        credentials: "same-origin",
      });
    } catch {
      this.note.textContent = "Could not reach the server to stop the run; it goes on. Try again.";
      this.button.disabled = false;
      return;
    }
    if (!response.ok) {
      this.note.textContent = await detailOf(response);
      return;
    }
    this.note.textContent = "Stopping at the next step…";
  }
}
