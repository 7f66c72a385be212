// The chart element of ui/plotly_element.py (a Streamlit components-v2 module).
//
// Streamlit calls the default export at mount and again with every new `data` (the figure's spec as
// UTF-8 JSON bytes), always with the same parentElement. The first call makes the plot at the width
// its container has by then; each later one hands the new spec to Plotly.react, which diffs it
// against what is drawn (layout.datarevision tells it whether the data changed) and draws once.
// A change of the container's width (window resize, a tab shown) relayouts the width alone.
//
// plotly.js is the copy Streamlit's own frontend ships and serves (its PlotlyChart chunk, which sets
// window.Plotly when loaded): no other server is asked, and the browser has it cached already.

const PLOTLY_CHUNK = "__PLOTLY_CHUNK__"; // file name under static/js/, written in by ui/plotly_element.py
const DEFAULT_HEIGHT = 450; // px: Streamlit's for a figure without layout.height
const CONFIG = { // Streamlit's modebar (st.plotly_chart): no logo, no cloud, no lasso/box select
  displaylogo: false,
  showSendToCloud: false,
  modeBarButtonsToRemove: ["lasso2d", "select2d", "sendChartToCloud"],
};

let loading = null;

function plotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (loading === null) {
    const main = document.querySelector('script[type="module"][src*="static/js/index."]');
    const base = main ? main.src : new URL("static/js/", document.baseURI).href;
    loading = import(new URL(PLOTLY_CHUNK, base).href).then(() => window.Plotly);
  }
  return loading;
}

function decode(data) {
  return JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
}

function width(gd) {
  return Math.floor(gd.parentElement ? gd.parentElement.clientWidth : 0);
}

// Draws gd.lmNext, then whatever spec arrived meanwhile: one Plotly call at a time per chart.
async function draw(gd) {
  if (gd.lmDrawing) return;
  gd.lmDrawing = true;
  try {
    const Plotly = await plotly();
    while (gd.lmNext) {
      const spec = gd.lmNext;
      gd.lmNext = null;
      const layout = spec.layout || {};
      layout.height = layout.height || DEFAULT_HEIGHT;
      const w = width(gd);
      if (w > 0) layout.width = w; // else (a hidden tab) Plotly's default; the observer fixes it when shown
      gd.style.height = `${layout.height}px`;
      await Plotly.react(gd, spec.data || [], layout, CONFIG);
    }
  } finally {
    gd.lmDrawing = false;
  }
}

function resize(gd) {
  const w = width(gd);
  if (w > 0 && gd._fullLayout && !gd.lmDrawing && Math.abs(gd._fullLayout.width - w) >= 1) {
    window.Plotly.relayout(gd, { width: w });
  }
}

// The plot's box is marked as st.plotly_chart's is (data-testid="stPlotlyChart", the plot inside it),
// so what finds a chart on a page (browser tests, bench/dom_timeline.py) finds these.
function mount(parentElement) {
  const box = document.createElement("div");
  box.className = "stPlotlyChart";
  box.dataset.testid = "stPlotlyChart";
  const gd = document.createElement("div");
  gd.className = "lmlab-plot";
  box.appendChild(gd);
  parentElement.appendChild(box);
  gd.lmObserver = new ResizeObserver(() => resize(gd));
  gd.lmObserver.observe(box);
  return gd;
}

export default function ({ data, parentElement }) {
  const gd = parentElement.querySelector(":scope > .stPlotlyChart > .lmlab-plot") || mount(parentElement);
  gd.lmNext = decode(data);
  draw(gd);
  return () => {
    gd.lmObserver.disconnect();
    if (window.Plotly) window.Plotly.purge(gd);
  };
}
