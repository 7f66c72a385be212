// The table element of ui/table_element.py (a Streamlit components-v2 module).
//
// Streamlit calls the default export at mount and again with every new `data` (a table's HTML as
// UTF-8 bytes, made by ui/tables.py's html_table: every header and cell escaped, so the whole of it
// is text inside our own tags; an element sent again unchanged is not called), always with the same
// parentElement. The table is written into its box once per change: no sanitiser pass and no React
// render of the markup, which st.html gives it at every run (about 10 ms of the browser's time for a
// ten-row table, on every move of a control that redraws it).

export default function ({ data, parentElement }) {
  let box = parentElement.querySelector(":scope > .lmlab-table");
  if (!box) {
    box = document.createElement("div");
    box.className = "lmlab-table";
    box.dataset.testid = "lmlabTable";
    parentElement.appendChild(box);
  }
  const html = typeof data === "string" ? data : new TextDecoder().decode(data);
  if (box.dataset.html !== html) {
    box.innerHTML = html;
    box.dataset.html = html;
  }
}
