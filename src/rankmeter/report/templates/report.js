// rankmeter HTML report: draws the Vega-Lite plots and the per-query table from the JSON block.
(function () {
  "use strict";
  const timings = { start: performance.now() };
  window.rankmeterTimings = timings;
  const data = JSON.parse(document.getElementById("report-data").textContent);
  timings.parsed = performance.now();
  const embedOptions = { actions: false, renderer: "canvas" };
  const views = {};
  const embedded = {};
  window.rankmeterViews = views;  // the Vega views, for scripts that drive the page
  function embed(name, spec) {
    if (embedded[name]) embedded[name].finalize();
    return vegaEmbed("#" + name + "-plot", spec, embedOptions).then((result) => {
      embedded[name] = result;
      views[name] = result.view;
      result.view.addEventListener("click", (event, item) => {
        if (item && item.datum && item.datum.query !== undefined) showQuery(item.datum.query);
      });
    });
  }
  const state = { system: null, measure: data.measures[0], sortKey: null, sortDir: 1, filter: "" };
  const others = data.systems.filter((s) => s !== data.baseline);
  state.system = others.length ? others[0] : data.systems[0];

  function fill(select, items, value) {
    for (const item of items) {
      const option = document.createElement("option");
      option.value = item;
      option.textContent = item;
      select.appendChild(option);
    }
    select.value = value;
  }

  function outcome(delta) {
    return delta > 0 ? "better" : delta < 0 ? "worse" : "equal";
  }

  function withData(spec, values, extra) {
    const copy = JSON.parse(JSON.stringify(spec));
    copy.data = { values: values };
    if (extra) copy.datasets = extra;
    return copy;
  }

  function pairRows(system, measure) {
    const base = data.values[data.baseline][measure];
    const vals = data.values[system][measure];
    const rows = data.queries.map((q, i) => ({ query: q, base: base[i], value: vals[i], delta: vals[i] - base[i] }));
    rows.forEach((r) => { r.outcome = outcome(r.delta); });
    return rows;
  }

  function drawMeans(measure) {
    const rows = data.systems_table
      .filter((r) => r.measure === measure)
      .map((r) => ({ system: r.name, mean: r.mean, low: r.low, high: r.high, role: r.name === data.baseline ? "baseline" : "system" }));
    return embed("means", withData(data.specs.means, rows));
  }

  function drawPair() {
    const rows = pairRows(state.system, state.measure);
    const sorted = rows.slice().sort((a, b) => a.delta - b.delta);
    sorted.forEach((r, i) => { r.rank = i; r.rank_end = i + 1; });
    let lo = 0, hi = 1;
    for (const r of rows) { lo = Math.min(lo, r.base, r.value); hi = Math.max(hi, r.base, r.value); }
    const paired = JSON.parse(JSON.stringify(data.specs.paired));
    paired.data = { values: rows };
    paired.layer[0].data = { values: [{ v: lo }, { v: hi }] };
    const wins = rows.filter((r) => r.delta > 0).length;
    const losses = rows.filter((r) => r.delta < 0).length;
    const mean = rows.reduce((s, r) => s + r.delta, 0) / Math.max(rows.length, 1);
    document.getElementById("plot-caption").textContent =
      `${state.system} vs ${data.baseline} on ${state.measure}: mean \u0394 = ${mean >= 0 ? "+" : ""}${mean.toFixed(4)}, ` +
      `better on ${wins}, worse on ${losses}, equal on ${rows.length - wins - losses} queries`;
    const drawn = `${state.system} on ${state.measure}`;
    return Promise.all([
      embed("diff", withData(data.specs.differences, sorted)),
      embed("paired", paired),
    ]).then(() => { document.documentElement.dataset.plotted = drawn; });
  }

  function columns() {
    const cols = [{ key: "query", title: "query", text: true }];
    for (const s of data.systems) cols.push({ key: "s:" + s, title: s });
    cols.push({ key: "delta", title: `\u0394 ${state.system} \u2212 ${data.baseline}` });
    return cols;
  }

  function tableRows() {
    const m = state.measure;
    const base = data.values[data.baseline][m];
    const chosen = data.values[state.system][m];
    let index = data.queries.map((_, i) => i);
    if (state.filter) index = index.filter((i) => data.queries[i].toLowerCase().includes(state.filter));
    if (state.sortKey) {
      const key = state.sortKey;
      const value = (i) => key === "query" ? data.queries[i]
        : key === "delta" ? chosen[i] - base[i] : data.values[key.slice(2)][m][i];
      index.sort((a, b) => {
        const va = value(a), vb = value(b);
        return (va < vb ? -1 : va > vb ? 1 : a - b) * state.sortDir;
      });
    }
    return index;
  }

  function drawTable() {
    const table = document.getElementById("per-query-table");
    const cols = columns();
    const head = document.createElement("tr");
    for (const c of cols) {
      const th = document.createElement("th");
      th.textContent = c.title + (state.sortKey === c.key ? (state.sortDir > 0 ? " \u25b2" : " \u25bc") : "");
      th.dataset.key = c.key;
      th.setAttribute("aria-sort", state.sortKey === c.key ? (state.sortDir > 0 ? "ascending" : "descending") : "none");
      head.appendChild(th);
    }
    table.tHead.replaceChildren(head);
    const m = state.measure;
    const base = data.values[data.baseline][m];
    const chosen = data.values[state.system][m];
    const body = document.createDocumentFragment();
    const index = tableRows();
    for (const i of index) {
      const tr = document.createElement("tr");
      const q = document.createElement("td");
      q.textContent = data.queries[i];
      q.className = "qid";
      tr.appendChild(q);
      for (const s of data.systems) {
        const td = document.createElement("td");
        const v = data.values[s][m][i];
        td.textContent = v.toFixed(4);
        td.className = "num";
        td.title = String(v);
        tr.appendChild(td);
      }
      const d = chosen[i] - base[i];
      const td = document.createElement("td");
      td.textContent = (d > 0 ? "+" : "") + d.toFixed(4);
      td.className = "num " + (d > 0 ? "better" : d < 0 ? "worse" : "");
      tr.appendChild(td);
      body.appendChild(tr);
    }
    table.tBodies[0].replaceChildren(body);
    document.getElementById("pq-count").textContent = `${index.length} of ${data.queries.length} queries`;
  }

  // a click on a bar or a point shows that query in the per-query table
  function showQuery(query) {
    const input = document.getElementById("pq-filter");
    input.value = query;
    state.filter = query.toLowerCase();
    drawTable();
    document.getElementById("per-query").scrollIntoView();
  }

  function setup() {
    const meansMeasure = document.getElementById("means-measure");
    const plotSystem = document.getElementById("plot-system");
    const plotMeasure = document.getElementById("plot-measure");
    const pqMeasure = document.getElementById("pq-measure");
    fill(meansMeasure, data.measures, data.measures[0]);
    fill(plotSystem, others.length ? others : data.systems, state.system);
    fill(plotMeasure, data.measures, state.measure);
    fill(pqMeasure, data.measures, state.measure);
    meansMeasure.addEventListener("change", () => drawMeans(meansMeasure.value));
    function choose(system, measure) {
      state.system = system;
      state.measure = measure;
      plotSystem.value = system;
      plotMeasure.value = measure;
      pqMeasure.value = measure;
      drawTable();
      return drawPair();
    }
    plotSystem.addEventListener("change", () => choose(plotSystem.value, state.measure));
    plotMeasure.addEventListener("change", () => choose(state.system, plotMeasure.value));
    pqMeasure.addEventListener("change", () => choose(state.system, pqMeasure.value));
    document.getElementById("pq-filter").addEventListener("input", (e) => {
      state.filter = e.target.value.trim().toLowerCase();
      drawTable();
    });
    document.querySelector("#per-query-table thead").addEventListener("click", (e) => {
      const th = e.target.closest("th");
      if (!th) return;
      if (state.sortKey === th.dataset.key) state.sortDir = -state.sortDir;
      else { state.sortKey = th.dataset.key; state.sortDir = 1; }
      drawTable();
    });
    drawTable();
    timings.table = performance.now();
    return Promise.all([drawMeans(data.measures[0]), drawPair()]);
  }

  setup().then(
    () => {
      window.rankmeterRenderMs = timings.ready = performance.now();
      document.documentElement.dataset.ready = "true";
    },
    (err) => {
      console.error("rankmeter report: " + err);
      document.documentElement.dataset.ready = "error";
    }
  );
})();
