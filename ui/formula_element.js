// The formula element of ui/formula_element.py (a Streamlit components-v2 module).
//
// Streamlit calls the default export at mount and again with every new `data` (the formula's LaTeX
// as UTF-8 bytes; an element sent again unchanged is not called), always with the same
// parentElement. The formula is drawn once into it: no Markdown parse and no React tree of its
// glyphs (st.latex's path, which the frontend renders again at every change of the app's state).
//
// It is drawn by the very renderer st.latex uses: Streamlit's rehype-katex chunk (KaTeX 0.16.47, the
// version of the KaTeX CSS and fonts in Streamlit's page; the separate katex chunk is another
// version, whose output that CSS lays out wrong). The plugin turns a math node of a syntax tree
// (hast) into KaTeX's output; that tree is written out as HTML here. No other server is asked.

const KATEX_CHUNK = "__KATEX_CHUNK__"; // file name under static/js/, written in by ui/formula_element.py
const VOID = new Set(["br", "hr", "img", "wbr"]);

let loading = null;

function rehypeKatex() {
  if (loading === null) {
    const main = document.querySelector('script[type="module"][src*="static/js/index."]');
    const base = main ? main.src : new URL("static/js/", document.baseURI).href;
    loading = import(new URL(KATEX_CHUNK, base).href).then((module) => module.default({}));
  }
  return loading;
}

const escape = (text) => String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function attribute(name) { // hast's property name → the attribute's (className → class, ariaHidden → aria-hidden)
  if (name === "className") return "class";
  return /^(aria|data)[A-Z]/.test(name) ? name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`) : name;
}

function html(node) { // a hast tree as HTML
  if (node.type === "text") return escape(node.value);
  const inner = (node.children || []).map(html).join("");
  if (node.type !== "element") return inner;
  let open = `<${node.tagName}`;
  for (const [name, value] of Object.entries(node.properties || {})) {
    if (value === false || value === null || value === undefined) continue;
    const text = value === true ? (name.startsWith("aria") ? "true" : "") : Array.isArray(value) ? value.join(" ") : value;
    open += ` ${attribute(name)}="${escape(text)}"`;
  }
  return VOID.has(node.tagName) ? `${open}>` : `${open}>${inner}</${node.tagName}>`;
}

// The HTML of the formulas drawn lately, by their LaTeX: a control moved back and forth (a slider
// dragged over a value it has shown) writes the formula it drew before without KaTeX (7-16 ms each).
const DRAWN = new Map();
const DRAWN_MAX = 32;

function drawn(transform, tex) {
  let out = DRAWN.get(tex);
  if (out === undefined) out = render(transform, tex);
  DRAWN.delete(tex); // newest last: the oldest goes first
  DRAWN.set(tex, out);
  if (DRAWN.size > DRAWN_MAX) DRAWN.delete(DRAWN.keys().next().value);
  return out;
}

function render(transform, tex) {
  const tree = {type: "root", children: [{type: "element", tagName: "span",
    properties: {className: ["math", "math-display"]}, children: [{type: "text", value: tex}]}]};
  transform(tree, {message: () => {}}); // a formula KaTeX cannot parse is drawn as its error, in red
  return html(tree);
}

export default function ({ data, parentElement }) {
  let box = parentElement.querySelector(":scope > .lmlab-formula");
  if (!box) {
    box = document.createElement("div");
    box.className = "lmlab-formula";
    box.dataset.testid = "lmlabFormula";
    box.style.fontSize = "1rem"; // st.markdown's size: rem, so the projector's larger root size applies
    parentElement.appendChild(box);
  }
  const tex = typeof data === "string" ? data : new TextDecoder().decode(data);
  box.dataset.tex = tex;
  rehypeKatex().then((transform) => {
    if (box.dataset.tex === tex) box.innerHTML = drawn(transform, tex); // the newest formula only
  });
}
