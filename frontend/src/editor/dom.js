// Tiny element builders: every piece of data goes in as a text node or an attribute value,
// never as markup, so nothing a submission prints can become HTML.

const SVG_NS = "http://www.w3.org/2000/svg";

function fill(el, attrs, children) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") el.setAttribute("class", String(value));
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** An HTML element. */
export function h(tag, attrs, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

/** An SVG element. */
export function svg(tag, attrs, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** "(2, 4, 4)" for a shape list. */
export function shapeText(shape) {
  if (!Array.isArray(shape)) return "?";
  return "(" + shape.join(", ") + (shape.length === 1 ? ",)" : ")");
}
