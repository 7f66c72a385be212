// The chart element of ui/plotly_element.py (a Streamlit components-v2 module).
//
// Streamlit calls the default export at mount and again with every new `data` (the figure's spec as
// UTF-8 JSON bytes; an element sent again unchanged is not called), always with the same
// parentElement. The first call makes the plot at the width its container has by then; each later
// one hands the new spec to Plotly.react, which diffs it against what is drawn (layout.datarevision
// tells it whether the data changed) and draws once.
// A spec {"hidden": true} hides the box and keeps its plot: shown again, the next figure is a diff.
// A change of the container's width (window resize, a tab shown) relayouts the size alone. The
// modebar keeps st.plotly_chart's buttons, its Fullscreen one included (the browser's full screen).
//
// plotly.js is the copy Streamlit's own frontend ships and serves (its PlotlyChart chunk, which sets
// window.Plotly when loaded): no other server is asked, and the browser has it cached already.

const PLOTLY_CHUNK = "__PLOTLY_CHUNK__"; // file name under static/js/, written in by ui/plotly_element.py
const DEFAULT_HEIGHT = 450; // px: Streamlit's for a figure without layout.height
const FULLSCREEN = {
  name: "Fullscreen",
  title: "Fullscreen",
  icon: {width: 24, height: 24, path: "M7 14H5v5h5v-2H7v-3zm-2-4h2V7h3V5H5v5zm12 7h-3v2h5v-5h-2v3zM14 5v2h3v3h2V5h-5z"},
  click: (gd) => (document.fullscreenElement ? document.exitFullscreen() : gd.parentElement.requestFullscreen()),
};
const CONFIG = { // Streamlit's modebar (st.plotly_chart): no logo, no cloud, no lasso/box select
  displaylogo: false,
  showSendToCloud: false,
  modeBarButtonsToRemove: ["lasso2d", "select2d", "sendChartToCloud"],
  modeBarButtonsToAdd: document.fullscreenEnabled ? [FULLSCREEN] : [],
}; // one object: Plotly.react compares configs, the button's click function by identity

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

function text(data) {
  return typeof data === "string" ? data : new TextDecoder().decode(data);
}

// The plot's size: its box's width (0 in a hidden tab) and the figure's height, or the screen's in full screen.
// The box as the observer last saw it shown (gd.lmBox, read in its callback, after a layout: free; a box
// hidden by hidden_chart keeps the width it had, and the next figure shown there is drawn at it); before its
// first callback (at mount), read now. Read during a page's run it would lay out the whole page there
// and then, between React's changes of the other elements: once more per move and chart.
function size(gd) {
  const box = gd.lmBox || measure(gd);
  return {width: box.width, height: document.fullscreenElement === gd.parentElement ? box.height : gd.lmHeight};
}
function measure(gd) {
  const box = gd.parentElement;
  return {width: Math.floor(box.clientWidth), height: Math.floor(box.clientHeight)};
}

// A title wider than its plot (a phone) is broken into lines at spaces (between any two Chinese
// characters), never inside a tag, and the top margin grows by a line for each line added.
const WIDE = /[\u2E80-\u9FFF\uF900-\uFAFF\uFF00-\uFFEF]/;
const TAG = /^<\/?(b|i|em|sub|sup|span|a|s|u)\b[^>]*>$/; // Plotly's text tags; any other "<" is text
const TOKENS = /<\/?(?:b|i|em|sub|sup|span|a|s|u)\b[^>]*>|\s+|[\u2E80-\u9FFF\uF900-\uFAFF\uFF00-\uFFEF]|[^<\s\u2E80-\u9FFF\uF900-\uFAFF\uFF00-\uFFEF]+|</g;
function ems(text) { // the width of plain text in em: a Chinese character 1, anything else about 0.56
  let em = 0;
  for (const ch of text) em += WIDE.test(ch) ? 1 : 0.56;
  return em;
}
function fitTitle(layout, original, width) {
  if (!original || !(width > 0)) return;
  const {text, top, size} = original;
  const room = (width - 24) / size; // em
  const lines = [""];
  for (const token of text.match(TOKENS) || []) {
    const line = lines[lines.length - 1] + token;
    const plain = (line.match(TOKENS) || []).filter((t) => !TAG.test(t)).join("").trim();
    if (!TAG.test(token) && lines[lines.length - 1].trim() && ems(plain) > room) {
      if (!/^\s+$/.test(token)) lines.push(token);
    } else {
      lines[lines.length - 1] = line;
    }
  }
  layout.title = {...(layout.title || {}), text: lines.map((l) => l.trim()).join("<br>")};
  layout.margin = {...(layout.margin || {}), t: top + Math.round((lines.length - 1) * size * 1.25)};
}
function titleOf(layout) { // what fitTitle starts from: the figure's own title, top margin and title size
  const title = typeof layout.title === "string" ? {text: layout.title} : layout.title;
  if (!title || !title.text || title.text.includes("<br>")) return null;
  const size = (title.font && title.font.size) || ((layout.font && layout.font.size) || 12) * 1.4;
  return {text: title.text, top: (layout.margin && layout.margin.t) ?? 100, size};
}

// Tick labels a figure places itself on an x axis (tickmode "array": token labels, thinned on the
// server for a desktop plot) are thinned again for a narrower plot (a phone): every k-th is kept, k
// large enough that neighbours do not run into each other (side by side, or rotated: a line apart).
const MAPS = new Set(["heatmap", "contour", "histogram2d", "histogram2dcontour"]);
function ticksOf(layout, data) { // what fitTicks starts from: each such axis's own ticks, and its room
  const axes = {};
  for (const [name, axis] of Object.entries(layout)) {
    if (/^xaxis\d*$/.test(name) && axis && axis.tickmode === "array" && Array.isArray(axis.tickvals)
        && Array.isArray(axis.ticktext) && axis.tickvals.length > 1) {
      axes[name] = {vals: axis.tickvals, text: axis.ticktext.map(String), angle: axis.tickangle ?? 0,
                    size: (axis.tickfont && axis.tickfont.size) || (layout.font && layout.font.size) || 12};
    }
  }
  const margin = layout.margin || {};
  const bar = data.some((trace) => MAPS.has(trace.type) && trace.showscale !== false) ? 90 : 0; // a colour bar's room
  return {axes, aside: (margin.l ?? 80) + (margin.r ?? 80) + bar};
}
function fitTicks(layout, ticks, width) {
  if (!ticks || !(width > 0)) return;
  const room = Math.max(width - ticks.aside, 40);
  for (const [name, {vals, text, angle, size}] of Object.entries(ticks.axes)) {
    const turned = Math.abs(angle) > 5 ? Math.sin(Math.abs(angle) * Math.PI / 180) : 0;
    const need = turned ? (size * 1.3) / turned : Math.max(...text.map(ems)) * size + 6; // px per label
    const k = Math.max(1, Math.ceil((need * vals.length) / room));
    layout[name] = {...(layout[name] || {}), tickvals: vals.filter((_, i) => i % k === 0),
                    ticktext: text.filter((_, i) => i % k === 0)};
  }
}

// A figure may say how it is laid out on a narrow screen (a phone): spec.lmNarrow (its
// layout.meta.lmNarrow, moved there by ui/charts.py: Plotly never sees it) = {below: px, layout:
// {...}, data: [{...}, ...]}. Below that width its layout and traces are merged with those (objects
// key by key, arrays item by item), say two plots side by side stacked instead.
function merged(base, extra) {
  if (Array.isArray(base) && Array.isArray(extra)) return base.map((item, i) => (i < extra.length ? merged(item, extra[i]) : item));
  if (base && extra && typeof base === "object" && typeof extra === "object" && !Array.isArray(extra)) {
    const out = {...base};
    for (const [key, value] of Object.entries(extra)) out[key] = key in base ? merged(base[key], value) : value;
    return out;
  }
  return extra === undefined ? base : extra;
}
function isNarrow(narrow, width) { return !!narrow && width > 0 && width < narrow.below; }

// Draws gd.lmNext, then whatever spec arrived meanwhile: one Plotly call at a time per chart. A
// figure's frames (a step-through animation: its play button and slider) go to Plotly with it.
async function draw(gd) {
  if (gd.lmDrawing) return;
  gd.lmDrawing = true;
  try {
    const Plotly = await plotly();
    while (gd.lmNext) {
      const spec = gd.lmNext;
      gd.lmNext = null;
      let layout = {...(spec.layout || {})}, data = spec.data || [];
      const narrow = spec.lmNarrow || null;
      gd.lmSpec = narrow ? structuredClone(spec) : null; // drawn again when the width crosses narrow.below
      gd.lmNarrow = isNarrow(narrow, size(gd).width);
      if (gd.lmNarrow) {
        layout = merged(layout, narrow.layout || {});
        data = merged(data, narrow.data || []);
      }
      gd.lmHeight = layout.height || DEFAULT_HEIGHT;
      const {width, height} = size(gd);
      if (width > 0) layout.width = width; // else (a hidden tab) Plotly's default; the observer fixes it when shown
      gd.lmTitle = titleOf(layout);
      fitTitle(layout, gd.lmTitle, width);
      gd.lmTicks = ticksOf(layout, spec.data || []);
      fitTicks(layout, gd.lmTicks, width);
      layout.height = height;
      gd.style.height = `${height}px`;
      keepRanges(gd.layout, layout);
      await Plotly.react(gd, {data, layout, frames: spec.frames || [], config: CONFIG});
    }
  } finally {
    gd.lmDrawing = false;
  }
  if (gd.lmResized) { // the box changed size while Plotly drew
    gd.lmResized = false;
    resize(gd);
  }
}

// Same data (the datarevision: ui/charts.py's spec), so Plotly.react will not compute the axes' ranges
// again: each axis the figure leaves to autorange keeps the range found for what is drawn (plotly.js
// wrote it into the layout it drew), as if the figure had said it. Only a highlight moved.
function keepRanges(drawn, layout) {
  if (!drawn || drawn.datarevision === undefined || drawn.datarevision !== layout.datarevision) return;
  for (const [name, axis] of Object.entries(drawn)) {
    const own = layout[name];
    if (/^[xy]axis\d*$/.test(name) && axis && Array.isArray(axis.range) && axis.autorange === true
        && (own === undefined || (own.range === undefined && own.autorange === undefined))) {
      layout[name] = {...(own || {}), range: axis.range.slice(), autorange: true};
    }
  }
}

function resize(gd) {
  const {width, height} = size(gd);
  if (gd.lmSpec && !gd.lmDrawing && width > 0 && isNarrow(gd.lmSpec.lmNarrow, width) !== gd.lmNarrow) {
    gd.lmNext = structuredClone(gd.lmSpec); // its narrow layout on, or off: the figure is laid out anew
    draw(gd);
    return;
  }
  const drawn = gd._fullLayout;
  if (width > 0 && drawn && !gd.lmDrawing && (Math.abs(drawn.width - width) >= 1 || drawn.height !== height)) {
    gd.style.height = `${height}px`;
    const update = {};
    fitTitle(update, gd.lmTitle, width);
    if (update.title) Object.assign(update, {"title.text": update.title.text, "margin.t": update.margin.t});
    delete update.title;
    delete update.margin;
    const ticks = {};
    fitTicks(ticks, gd.lmTicks, width);
    for (const [name, axis] of Object.entries(ticks)) {
      Object.assign(update, {[`${name}.tickvals`]: axis.tickvals, [`${name}.ticktext`]: axis.ticktext});
    }
    window.Plotly.relayout(gd, {width, height, ...update});
  }
}

// The plot's box is marked as st.plotly_chart's is (data-testid="stPlotlyChart", the plot inside it),
// so what finds a chart on a page (browser tests, bench/dom_timeline.py) finds these.
function mount(parentElement) {
  const box = document.createElement("div");
  box.className = "stPlotlyChart";
  box.dataset.testid = "stPlotlyChart";
  box.style.overflowX = "auto"; // as st.plotly_chart's element box: what a plot cannot fit scrolls in it
  box.style.backgroundColor = "var(--st-background-color, #fff)"; // in full screen too
  const gd = document.createElement("div");
  gd.className = "lmlab-plot";
  box.appendChild(gd);
  parentElement.appendChild(box);
  gd.lmObserver = new ResizeObserver(() => {
    const seen = measure(gd);
    if (seen.width > 0 || !gd.lmBox) gd.lmBox = seen; // a box hidden (0 wide) keeps the width it was drawn at
    if (gd.lmDrawing) gd.lmResized = true;
    else resize(gd);
  });
  gd.lmObserver.observe(box);
  return gd;
}

export default function ({ data, parentElement }) {
  const gd = parentElement.querySelector(":scope > .stPlotlyChart > .lmlab-plot") || mount(parentElement);
  const json = text(data);
  const spec = JSON.parse(json);
  gd.parentElement.style.display = spec.hidden ? "none" : ""; // a chart kept out of sight (ui/charts.py's hidden_chart)
  // Shown again with the figure it was hidden with (the seq2seq page's attention map, back to a model
  // with attention): it is drawn already. Plotly.react would draw it again (7 ms on a blank page, 20-35 here).
  if (!spec.hidden && !(json === gd.lmShown && gd._fullLayout && !gd.lmDrawing && !gd.lmNext)) {
    gd.lmShown = json;
    gd.lmNext = spec;
    if (!gd._fullLayout) gd.style.height = `${spec.layout?.height || DEFAULT_HEIGHT}px`; // its room while plotly.js loads
    draw(gd);
  }
  return () => { // hidden or not: an element that goes takes its observer and plot with it
    gd.lmObserver.disconnect();
    if (window.Plotly) window.Plotly.purge(gd);
  };
}
