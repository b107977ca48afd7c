// A finished experiment's report in pictures: accuracy and loss beside the course's reference
// runs, and what the model learned about position. The server draws the SVGs
// (/submissions/{id}/figures/*.svg); the table and the alt texts say the same in words.
import { h } from "./dom.js";

function pct(value) {
  return value === null || value === undefined ? "refused" : `${Math.round(100 * value)}%`;
}

// Past the training length a causal model's earlier positions score as in training, so the
// cell leads with the new positions (the trained ones in brackets); older reports have only all.
function cell(metrics, n) {
  const fresh = metrics.new_by_length;
  if (Number(n) <= metrics.train_length || !fresh) return pct(metrics.accuracy_by_length[n]);
  const seen = (metrics.trained_by_length || {})[n];
  return seen === null || seen === undefined ? pct(fresh[n]) : `${pct(fresh[n])} (${pct(seen)})`;
}

function accuracyTable(metrics) {
  const lengths = Object.keys(metrics.accuracy_by_length);
  const chance = metrics.chance ? ` Guessing scores ${pct(metrics.chance)}.` : "";
  const caption = metrics.new_by_length
    ? `Your model: share answered right; past ${metrics.train_length}, on the new positions only `
      + `(in brackets, on the positions it was trained on).${chance}`
    : "Your model: share of positions answered right, by sequence length";
  return h("table", { class: "lab-table" },
    h("caption", null, caption),
    h("thead", null, h("tr", null,
      lengths.map((n) => h("th", { scope: "col" }, Number(n) === metrics.train_length ? `${n} (trained)` : n)))),
    h("tbody", null, h("tr", null, lengths.map((n) => h("td", null, cell(metrics, n))))));
}

function pictureWords(picture) {
  const values = picture.values;
  if (picture.kind === "similarity") {
    const n = values.length;
    let near = 0;
    for (let i = 0; i + 1 < n; i += 1) near += values[i][i + 1];
    near /= Math.max(n - 1, 1);
    return `Cosine similarity between your module's position vectors for positions 0 to ${n - 1}: `
      + `neighbours ${near.toFixed(2)} on average, first and last ${values[0][n - 1].toFixed(2)}.`;
  }
  const row = values[0];
  return `The score your module gives one query and key by their distance (0 to ${row.length - 1} places), `
    + `head 1: ${row[0].toFixed(2)} at distance 0, ${row[row.length - 1].toFixed(2)} at ${row.length - 1}.`;
}

/** The figures of a finished experiment, or null for any other report. */
export function labFigures(view) {
  const metrics = view.metrics;
  if (!metrics || !metrics.accuracy_by_length || view.id === undefined) return null;
  const base = `/submissions/${view.id}/figures`;
  const accuracyWords = Object.keys(metrics.accuracy_by_length).map((n) => `${cell(metrics, n)} at ${n}`).join(", ");
  const loss = Array.isArray(metrics.loss) ? metrics.loss : [];
  const figures = [
    ["accuracy", `Accuracy by sequence length, yours (black) over the course's reference runs: ${accuracyWords}.`,
      "Accuracy by length: your model and the reference runs, on the same axes."],
    ["loss", loss.length ? `Training loss, yours (black) from ${loss[0]} to ${loss[loss.length - 1]}, beside the reference runs.` : "Training loss.",
      "The loss while training: yours and the reference runs."],
  ];
  if (metrics.position_picture) {
    figures.push(["positions", pictureWords(metrics.position_picture), "What your module learned about position."]);
  }
  return h("section", { class: "lab-report", "aria-labelledby": "lab-report-h" },
    h("h4", { id: "lab-report-h" }, "Your experiment in pictures"),
    accuracyTable(metrics),
    figures.map(([name, alt, caption]) => h("figure", { class: "lab-figure-img" },
      h("img", { src: `${base}/${name}.svg`, alt, loading: "lazy", width: name === "accuracy" ? "560" : "520", height: "260" }),
      h("figcaption", null, caption))));
}
