// Heatmaps of a failing visible test: expected, yours, and yours minus expected, all on one
// diverging colour scale (blue below zero, white at zero, red above), drawn as SVG.
import { h, shapeText, svg } from "./dom.js";

const NEG = [33, 102, 172];
const MID = [247, 247, 247];
const POS = [178, 24, 43];
let patternCount = 0;

/** A preview as rows of numbers (or nulls): 1-D becomes one row, 2-D stays as it is. */
function asRows(preview) {
  if (!Array.isArray(preview) || preview.length === 0) return null;
  return Array.isArray(preview[0]) ? preview : [preview];
}

function finite(value) {
  return typeof value === "number" && Number.isFinite(value);
}

function mix(a, b, t) {
  return a.map((x, i) => Math.round(x + (b[i] - x) * t));
}

/** Colour for a value on the scale [-limit, limit]. */
function colour(value, limit) {
  const t = Math.max(-1, Math.min(1, value / limit));
  const [r, g, b] = t < 0 ? mix(MID, NEG, -t) : mix(MID, POS, t);
  return `rgb(${r}, ${g}, ${b})`;
}

function format(value) {
  if (!finite(value)) return "no value (NaN or infinite)";
  const abs = Math.abs(value);
  return abs !== 0 && (abs < 1e-3 || abs >= 1e4) ? value.toExponential(3) : String(Number(value.toPrecision(4)));
}

function difference(expected, received) {
  return expected.map((row, i) => row.map((e, j) => {
    const r = received[i] ? received[i][j] : null;
    return finite(e) && finite(r) ? r - e : null;
  }));
}

function hatch() {
  patternCount += 1;
  const id = `hatch-${patternCount}`;
  const pattern = svg("pattern", {
    id, width: 4, height: 4, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)",
  },
  svg("rect", { width: 4, height: 4, fill: "#d9d9d9" }),
  svg("line", { x1: 0, y1: 0, x2: 0, y2: 4, stroke: "#7a7a7a", "stroke-width": 1.5 }));
  return { id, defs: svg("defs", null, pattern) };
}

/** One heatmap as an <svg>, each cell with a <title> holding its value. */
function heatmap(title, rows, limit, oneRow) {
  const cols = Math.max(...rows.map((r) => r.length));
  const cell = Math.max(6, Math.min(22, Math.floor(300 / Math.max(cols, 1))));
  const width = cols * cell;
  const height = rows.length * cell;
  const { id, defs } = hatch();
  const cells = [];
  rows.forEach((row, i) => row.forEach((value, j) => {
    const where = oneRow ? `index ${j}` : `row ${i}, column ${j}`;
    cells.push(svg("rect", {
      x: j * cell, y: i * cell, width: cell, height: cell,
      fill: finite(value) ? colour(value, limit) : `url(#${id})`,
      class: finite(value) ? "cell" : "cell cell-empty",
    }, svg("title", null, `${title}, ${where}: ${format(value)}`)));
  }));
  const picture = svg("svg", {
    class: "heatmap", role: "img", width, height, viewBox: `0 0 ${width} ${height}`,
    "aria-label": `${title}: ${rows.length} by ${cols} heatmap; its numbers are in the table that follows`,
  }, defs, cells,
  svg("rect", { x: 0, y: 0, width, height, fill: "none", stroke: "#9aa5b5", "stroke-width": 1 }));
  return h("figure", { class: "heatmap-figure" }, picture, h("figcaption", null, title), numbers(title, rows, oneRow));
}

/** The heatmap's values as a table, folded: the text equivalent of the colours. */
function numbers(title, rows, oneRow) {
  const cols = Math.max(...rows.map((r) => r.length));
  const head = h("tr", null, h("th", { scope: "col" }, oneRow ? "Index" : "Row"),
    Array.from({ length: cols }, (_, j) => h("th", { scope: "col" }, oneRow ? `[${j}]` : `col ${j}`)));
  const body = rows.map((row, i) => h("tr", null, h("th", { scope: "row" }, oneRow ? "value" : `row ${i}`),
    row.map((value) => h("td", { class: "num" }, format(value)))));
  return h("details", { class: "heatmap-numbers" }, h("summary", null, `${title} as numbers`),
    h("div", { class: "table-scroll" }, h("table", null, h("caption", { class: "visually-hidden" }, `${title}: values`),
      h("thead", null, head), h("tbody", null, body))));
}

function legend(limit) {
  const gradientId = `scale-${++patternCount}`;
  const { id, defs } = hatch();
  const stops = [[0, NEG], [0.5, MID], [1, POS]].map(([offset, c]) =>
    svg("stop", { offset, "stop-color": `rgb(${c.join(", ")})` }));
  defs.append(svg("linearGradient", { id: gradientId, x1: 0, x2: 1, y1: 0, y2: 0 }, stops));
  const picture = svg("svg", {
    class: "heatmap-legend", width: 300, height: 44, viewBox: "0 0 300 44", role: "img",
    "aria-label": `Colour scale from ${format(-limit)} (blue) through 0 (white) to ${format(limit)} (red); hatched grey means no value`,
  }, defs,
  svg("rect", { x: 10, y: 4, width: 200, height: 14, fill: `url(#${gradientId})`, stroke: "#9aa5b5" }),
  svg("text", { x: 10, y: 34, "font-size": 11, "text-anchor": "start" }, format(-limit)),
  svg("text", { x: 110, y: 34, "font-size": 11, "text-anchor": "middle" }, "0"),
  svg("text", { x: 210, y: 34, "font-size": 11, "text-anchor": "end" }, format(limit)),
  svg("rect", { x: 226, y: 4, width: 14, height: 14, fill: `url(#${id})`, stroke: "#9aa5b5" }),
  svg("text", { x: 244, y: 15, "font-size": 11 }, "no value"));
  return h("div", { class: "heatmap-scale" }, picture);
}

function sameShape(a, b) {
  return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((n, i) => n === b[i]);
}

function sliceNote(shape) {
  if (!Array.isArray(shape) || shape.length <= 2) return "";
  const lead = shape.slice(0, shape.length - 2).map(() => "0").join(", ");
  return `[${lead}, :, :]`;
}

/** Expected vs received for one failing visible test, or null when there is nothing to draw. */
export function tensorFeedback(test) {
  const expected = asRows(test.expected);
  const received = asRows(test.received);
  const box = h("div", { class: "tensor-feedback" });
  const same = sameShape(test.expected_shape, test.received_shape);
  box.append(h("dl", { class: "shapes" },
    h("div", null, h("dt", null, "Expected shape"), h("dd", null, h("code", null, shapeText(test.expected_shape)))),
    h("div", { class: same ? "" : "shape-bad" }, h("dt", null, "Your shape"), h("dd", null, h("code", null, shapeText(test.received_shape))))));
  if (!expected && !received) return box;
  const maps = [];
  if (expected) maps.push([`Expected${sliceNote(test.expected_shape) ? " " + sliceNote(test.expected_shape) : ""}`, expected]);
  if (received) maps.push([`Yours${sliceNote(test.received_shape) ? " " + sliceNote(test.received_shape) : ""}`, received]);
  const aligned = same && expected && received && expected.length === received.length;
  if (aligned) maps.push(["Yours − expected", difference(expected, received)]);
  let limit = 0;
  for (const [, rows] of maps) for (const row of rows) for (const v of row) if (finite(v)) limit = Math.max(limit, Math.abs(v));
  if (limit === 0) limit = 1;
  const oneRow = !Array.isArray((test.expected || test.received || [])[0]);
  box.append(h("div", { class: "heatmaps" }, maps.map(([title, rows]) => heatmap(title, rows, limit, oneRow))));
  box.append(legend(limit));
  const notes = [];
  if (!same) {
    notes.push(`No difference map: your output has shape ${shapeText(test.received_shape)} but ${shapeText(test.expected_shape)} is expected, so the cells do not line up.`);
  }
  if (!expected || !received) notes.push("One of the outputs is too large or empty to draw.");
  if (sliceNote(test.expected_shape)) notes.push("Larger outputs are shown by their first 2-D slice.");
  for (const note of notes) box.append(h("p", { class: "meta heatmap-note" }, note));
  return box;
}
