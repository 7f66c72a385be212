// The markup element of ui/markup_element.py (a Streamlit components-v2 module).
//
// Streamlit calls the default export at mount and again with every new `data` (HTML as UTF-8 bytes,
// made by ui/tables.py's html_table or lmcore.figures.lstm's activation_html: every text in it
// escaped, so the whole of it is text inside our own tags; an element sent again unchanged is not
// called), always with the same parentElement. The markup is written into its box once per change:
// no sanitiser or Markdown pass and no React render of it, which st.html and st.markdown give it at
// every run (about 10 ms of the browser's time for a ten-row table, on every move of a control).

export default function ({ data, parentElement }) {
  let box = parentElement.querySelector(":scope > .lmlab-markup");
  if (!box) {
    box = document.createElement("div");
    box.className = "lmlab-markup";
    box.dataset.testid = "lmlabMarkup";
    parentElement.appendChild(box);
  }
  const html = typeof data === "string" ? data : new TextDecoder().decode(data);
  if (box.lmlabHtml !== html) { // kept on the box, not in an attribute: a 500-row table's markup twice in the page
    box.innerHTML = html;
    box.lmlabHtml = html;
  }
}
