// gengap viewer: plain JavaScript, no build step. Every text from data or models goes on the page
// through text nodes (el() below), never as markup; links are built from URLSearchParams.
"use strict";

const main = document.getElementById("main");
const statusLine = document.getElementById("status");
let INFO = null;      // /api/runs
let renders = 0;      // counted for tests and benchmarks: window.__gengap.renders

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === null || kid === undefined) continue;
    e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return e;
}

function link(route, params, ...kids) {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (v === null || v === undefined || v === "") continue;
    if (Array.isArray(v)) v.forEach(x => qs.append(k, x)); else qs.append(k, v);
  }
  const s = qs.toString();
  return el("a", { href: "#/" + route + (s ? "?" + s : "") }, ...kids);
}

async function api(path, params) {
  const qs = params ? new URLSearchParams(params).toString() : "";
  const res = await fetch(path + (qs ? "?" + qs : ""));
  const body = await res.json();
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

const pct = v => (v === null || v === undefined) ? "–" : (100 * v).toFixed(1) + "%";
const num = v => (v === null || v === undefined) ? "–" : (Math.abs(v) >= 100 || Number.isInteger(v) ? String(v) : Number(v).toPrecision(3));
const count = n => Number(n).toLocaleString("en-US");
// How a slice search controlled false discoveries, by its results.json "control" (as the report says it).
const CONTROL_TEXT = { bh: "Benjamini-Hochberg over every slice tested",
  split: "discovered on one half of the rows, confirmed on the other", none: "no correction" };
const pval = p => (p === null || p === undefined) ? "–" : (p < 0.001 ? "<0.001" : p.toFixed(3));
const interval = (lo, hi, f) => (lo === null || lo === undefined) ? "" : `[${f(lo)}, ${f(hi)}]`;
const runLabel = i => INFO && INFO.runs.length > 1 ? `${"AB"[i] || i}: ${INFO.runs[i].label}` : "";

function table(headers, rows, numeric) {
  numeric = numeric || [];
  return el("table", {},
    el("thead", {}, el("tr", {}, headers.map((h, i) => el("th", { class: numeric.includes(i) ? "num" : null }, h)))),
    el("tbody", {}, rows.map(r => el("tr", {}, r.map((c, i) => el("td", { class: numeric.includes(i) ? "num" : (typeof c === "string" && c.length > 40 ? "text" : null) }, c))))));
}

function nLink(n, rows) {
  // the count a figure rests on, linked to exactly those rows when they can be selected
  return rows ? link("rows", rows, el("span", { class: "n", "data-n": String(n) }, count(n))) : el("span", { class: "muted" }, count(n));
}

function show(...kids) {
  main.replaceChildren(...kids.flat(Infinity).filter(k => k !== null && k !== undefined).map(k => k instanceof Node ? k : document.createTextNode(String(k))));
}

let pendingFigures = false;  // the summary drawn last is still waiting for figures being computed
function done() { renders += 1; window.__gengap = { renders, at: performance.now(), wall: Date.now(), pending: pendingFigures }; }

// ------------------------------------------------------------------------------------ summary
async function showSummary(params) {
  const run = Number(params.get("run") || 0);
  const s = await api("/api/summary", { run });
  const r = INFO.runs[run];
  const parts = [el("h1", {}, "Summary", INFO.runs.length > 1 ? ` — run ${runLabel(run)}` : "")];
  if (INFO.runs.length > 1) parts.push(el("p", { class: "tabs" }, INFO.runs.map((x, i) => link("summary", { run: i }, runLabel(i)))));
  parts.push(el("p", { class: "muted" }, `run ${r.run_id}${r.name ? " (" + r.name + ")" : ""} · ${r.path} · models ${r.models.join(", ")} · ${count(s.n_rows ?? r.n_rows ?? 0)} rows`));
  r.notes.forEach(n => parts.push(el("p", { class: "note" }, n)));
  (s.problems || []).forEach(n => parts.push(el("p", { class: "note" }, n)));
  const pending = s.state === "computing" || s.state === "linking" || s.slices_state === "computing" || s.rows_state === "reading";
  pendingFigures = pending;
  if (pending) {
    // the rows are served already; the figures fill in when the background work is done
    const hash = location.hash;
    setTimeout(() => { if (location.hash === hash || (!location.hash && !hash)) route(); }, 700);
  }
  if (s.rows_state === "reading") {
    parts.push(el("p", { class: "computing", id: "reading" }, `Reading the ${count(s.rows_read ?? 0)} rows of the store into memory… the first rows can be read meanwhile: `, link("rows", { run }, "see the rows")));
  }
  if (s.state === "computing") {
    if (s.rows_state !== "reading") parts.push(el("p", { class: "computing", id: "computing" }, "Computing the report's figures from the stored rows… the rows can be read meanwhile: ", link("rows", { run }, "see the rows")));
    show(...parts); return;
  }
  if (s.state === "linking") parts.push(el("p", { class: "computing", id: "linking" }, "Each n links to its rows once they are read."));
  if (!s.scores) { show(...parts); return; }
  if (s.source) parts.push(el("p", { class: "muted", id: "source" }, `Figures: ${s.source}.`));
  if (s.headline) parts.push(el("p", { class: "headline" }, s.headline));
  parts.push(el("h2", {}, "Score per split"));
  parts.push(table(["Model", "Split", "Metric", "n", "Score", "95% CI", "Gap to " + (s.reference || "reference"), "Gap 95% CI", "p adj.", "Unextracted"],
    s.scores.map(x => [x.model, x.split, x.metric, nLink(x.n, x.rows), pct(x.score), interval(x.score_low, x.score_high, pct),
      x.split === x.reference ? "reference" : pct(x.gap), interval(x.gap_low, x.gap_high, pct), pval(x.gap_p_adjusted),
      x.unextracted === null || x.unextracted === undefined ? "" : pct(x.unextracted)]), [3, 4, 5, 6, 7, 8]));
  if (s.held_out.length) {
    parts.push(el("h2", {}, "Held-out groups"));
    parts.push(table(["Model", "Held-out group", "Split", "n", "Score", "95% CI", "Worst"],
      s.held_out.map(x => [x.model, x.held_out, x.split, nLink(x.n, x.rows), pct(x.score), interval(x.score_low, x.score_high, pct), x.worst ? "◀ worst" : ""]), [3, 4, 5]));
  }
  if (s.groups.length) {
    parts.push(el("h2", {}, `Groups on the reference split '${s.reference}'`));
    parts.push(table(["Model", "Group", "n", "Score", "95% CI", "Worst"],
      s.groups.map(x => [x.model, x.group, nLink(x.n, x.rows), pct(x.score), interval(x.score_low, x.score_high, pct), x.worst ? "◀ worst" : ""]), [2, 3, 4]));
  }
  if (s.transfer.length) {
    parts.push(el("h2", {}, "Transfer between groups"));
    parts.push(table(["Model", "Trained on", "Tested on", "n", "Score", "95% CI"],
      s.transfer.map(x => [x.model, x.train_group, x.test_group, nLink(x.n, x.rows), pct(x.score), interval(x.score_low, x.score_high, pct)]), [3, 4, 5]));
  }
  if (s.perturbations.length) {
    parts.push(el("h2", {}, "Stress tests (perturbation effects)"));
    parts.push(table(["Model", "Split", "Perturbation", "n", "Clean", "Perturbed", "Difference", "95% CI", "p adj.", "Flip rate"],
      s.perturbations.map(x => [x.model, x.split, x.perturbation, nLink(x.n, x.rows), pct(x.clean), pct(x.perturbed), pct(x.difference),
        interval(x.low, x.high, pct), pval(x.p_adjusted), pct(x.flip_rate)]), [3, 4, 5, 6, 7, 8, 9]));
  }
  parts.push(el("h2", {}, "Where it fails (slices below the rest)"));
  if (s.slices_state === "computing") parts.push(el("p", { class: "computing", id: "slices-computing" }, "Searching the clean rows for slices that score below the rest…"));
  else if (s.slices_state === "ready" && !s.slices.length) parts.push(el("p", { class: "muted" }, "No slice was tested (too few rows, or no column to search)."));
  else if (s.slices.length) {
    const controls = [...new Set(s.slices.map(x => CONTROL_TEXT[x.control] || x.control).filter(Boolean))].join("; ");
    parts.push(el("p", { class: "muted" }, `Every value of each metadata column and of the input and target length (binned), and their pairs, each tested one-sided against the rest of its split; false discoveries controlled (${controls || CONTROL_TEXT.bh}). Each n links to exactly the slice's rows.`));
    parts.push(table(["Model", "Split", "Slice", "n", "Score", "95% CI", "Gap to the rest", "Gap 95% CI", "p adj.", "Significant"],
      s.slices.map(x => [x.model, x.split, el("span", { class: "slice" }, x.description), nLink(x.n, x.rows), pct(x.score), interval(x.score_low, x.score_high, pct),
        pct(x.gap), interval(x.gap_low, x.gap_high, pct), pval(x.p_adjusted), x.significant ? "yes" : ""]), [3, 4, 5, 6, 7, 8]));
    parts[parts.length - 1].id = "slices";
  }
  for (const c of s.curves) {
    parts.push(el("h2", {}, `Score along ${c.axis} (${c.model})`));
    parts.push(table(["Bin", "n", "Score", "95% CI", "In training range", "Below reference"],
      c.bins.map(b => [b.low_edge === b.high_edge ? num(b.value) : `${num(b.low_edge)}–${num(b.high_edge)}`, nLink(b.n, b.rows), pct(b.score),
        interval(b.score_low, b.score_high, pct), b.in_range ? "yes" : "no", b.below ? "yes" : ""]), [1, 2, 3]));
  }
  show(...parts);
}

// ------------------------------------------------------------------------------------ rows
const FILTERS = ["run", "model", "split", "perturbation", "metric", "outcome", "q", "sort"];

function select(name, label, options, value) {
  return el("label", {}, label, el("select", { name },
    el("option", { value: "" }, "any"),
    options.map(o => { const [v, t] = Array.isArray(o) ? o : [o, o]; return el("option", { value: String(v), selected: String(v) === value ? "selected" : null }, t); })));
}

function rowsForm(params) {
  const runs = INFO.runs;
  const models = [...new Set(runs.flatMap(r => r.models))];
  const splits = [...new Set(runs.flatMap(r => r.splits))];
  const metrics = [...new Set(runs.flatMap(r => r.metrics))];
  const metaNames = Object.keys(INFO.meta);
  const metaKey = [...params.keys()].find(k => k.startsWith("meta.")) || "";
  const rangeKey = [...params.keys()].find(k => k.startsWith("min.") || k.startsWith("max.")) || "";
  const rangeField = rangeKey ? rangeKey.slice(4) : "";
  const form = el("form", { class: "filters", id: "filters" },
    runs.length > 1 ? select("run", "Run", runs.map((r, i) => [i, runLabel(i)]), params.get("run") || "") : null,
    select("model", "Model", models, params.get("model") || ""),
    select("split", "Split", splits, params.get("split") || ""),
    select("perturbation", "Perturbation", INFO.perturbations, params.get("perturbation") || ""),
    select("metric", "Metric", [...metrics.map(m => [m, m]), ["*", "every metric"]], params.get("metric") || ""),
    select("outcome", "Outcome", ["correct", "wrong", "unextracted"], params.get("outcome") || ""),
    el("label", {}, "Search input and output", el("input", { name: "q", type: "search", value: params.get("q") || "" })),
    el("label", {}, "Metadata field", el("select", { name: "metaField" }, el("option", { value: "" }, "—"),
      metaNames.map(m => el("option", { value: m, selected: metaKey === "meta." + m ? "selected" : null }, m)))),
    el("label", {}, "equals", el("input", { name: "metaValue", value: metaKey ? params.get(metaKey) : "" })),
    el("label", {}, "Range of", el("select", { name: "rangeField" }, el("option", { value: "" }, "—"),
      ["score", "input_length", "target_length", "output_length", ...metaNames.filter(m => INFO.meta[m] === "number")]
        .map(m => el("option", { value: m, selected: rangeField === m ? "selected" : null }, m)))),
    el("label", {}, "min", el("input", { name: "min", type: "number", step: "any", value: rangeField ? params.get("min." + rangeField) || "" : "" })),
    el("label", {}, "max", el("input", { name: "max", type: "number", step: "any", value: rangeField ? params.get("max." + rangeField) || "" : "" })),
    select("sort", "Sort", [["score", "score ↑"], ["-score", "score ↓"], ["example_id", "id"], ["input_length", "input length ↑"],
      ["-input_length", "input length ↓"], ...metaNames.map(m => ["meta." + m, m])], params.get("sort") || ""),
    el("button", { type: "submit" }, "Apply"));
  form.addEventListener("submit", ev => { ev.preventDefault(); applyForm(form, params); });
  form.querySelectorAll("select").forEach(s => s.addEventListener("change", () => applyForm(form, params)));
  return form;
}

function applyForm(form, old) {
  const data = new FormData(form);
  const next = new URLSearchParams();
  for (const k of FILTERS) { const v = data.get(k); if (v) next.set(k, v); }
  const mf = data.get("metaField"), mv = data.get("metaValue");
  if (mf && mv !== "") next.set("meta." + mf, mv);
  const rf = data.get("rangeField");
  if (rf && data.get("min") !== "") next.set("min." + rf, data.get("min"));
  if (rf && data.get("max") !== "") next.set("max." + rf, data.get("max"));
  // keep filters the form does not show (e.g. several values from a summary link)
  for (const [k, v] of old.entries()) {
    if (!FILTERS.includes(k) && !k.startsWith("meta.") && !k.startsWith("min.") && !k.startsWith("max.") && k !== "offset" && k !== "limit") next.append(k, v);
    if ((k === "split" || k === "model" || k === "run") && old.getAll(k).length > 1 && !data.get(k)) next.append(k, v);
  }
  location.hash = "#/rows?" + next.toString();
}

function outcomeOf(r) {
  if (r.unextracted) return el("span", { class: "unextracted" }, "unextracted");
  return r.correct ? el("span", { class: "correct" }, "correct") : el("span", { class: "wrong" }, "wrong");
}

const cut = (t, n) => t === null || t === undefined ? "" : (String(t).length > n ? String(t).slice(0, n) + "…" : String(t));

async function showRows(params) {
  const limit = Number(params.get("limit") || 50), offset = Number(params.get("offset") || 0);
  const query = new URLSearchParams(params);
  query.set("limit", limit); query.set("offset", offset);
  const page = await api("/api/rows", query);
  if (page.rows_state === "reading") {
    // answered from the first rows, read straight from the store: drawn again once every row is read
    const hash = location.hash;
    setTimeout(() => { if (location.hash === hash) route(); }, 700);
  }
  const exportQuery = new URLSearchParams(params); exportQuery.delete("limit"); exportQuery.delete("offset");
  const nav = (off) => { const p = new URLSearchParams(params); p.set("offset", Math.max(0, off)); return "#/rows?" + p.toString(); };
  const shown = page.rows.length ? `rows ${count(offset + 1)}–${count(offset + page.rows.length)} of ${count(page.total)}` : `no rows of ${count(page.total)}`;
  const multi = INFO.runs.length > 1;
  show(
    el("h1", {}, "Rows"),
    page.rows_state === "reading" ? el("p", { class: "computing", id: "reading" }, "Reading the rows into memory: these are the first rows as stored; filters, search, sorting and pages further in answer once every row is read.") : null,
    rowsForm(params),
    el("div", { class: "pager" },
      el("span", { id: "total", "data-total": String(page.total) }, shown),
      el("a", { href: offset > 0 ? nav(offset - limit) : null, id: "prev" }, "← previous"),
      el("a", { href: offset + limit < page.total ? nav(offset + limit) : null, id: "next" }, "next →"),
      el("span", { class: "muted" }, "export: "),
      el("a", { href: "/api/export/rows.jsonl?" + exportQuery.toString(), download: "gengap-rows.jsonl" }, "JSONL"),
      el("a", { href: "/api/export/rows.csv?" + exportQuery.toString(), download: "gengap-rows.csv" }, "CSV")),
    table([...(multi ? ["Run"] : []), "Row", "Model", "Split", "Perturbation", "Example", "Score", "Outcome", "Input", "Target", "Output", "Extracted"],
      page.rows.map(r => [...(multi ? ["AB"[r.run] || r.run] : []), link("row/" + r.rid, {}, String(r.rid)), r.model, r.split, r.perturbation, r.example_id,
        num(r.score), outcomeOf(r), cut(r.input, 200), cut(r.target, 120), cut(r.output, 200), r.extracted === null ? "" : cut(r.extracted, 60)]),
      [multi ? 6 : 5]));
}

// ------------------------------------------------------------------------------------ one row
function pieces(list, cls) {
  return list.map(([text, on]) => on ? el("mark", { class: cls }, text) : text);
}

function promptView(prompt, input) {
  if (prompt === null || prompt === undefined) return [el("p", { class: "muted" }, "No prompt was stored (the model read the input as it is):"), el("pre", {}, input ?? "")];
  if (Array.isArray(prompt)) {
    return [el("div", { class: "box", id: "prompt" }, prompt.map(m => el("div", {},
      el("span", { class: "role" }, (m && m.role ? m.role : "message") + ": "), m && typeof m.content === "string" ? m.content : JSON.stringify(m && m.content !== undefined ? m.content : m))))];
  }
  return [el("pre", { id: "prompt" }, typeof prompt === "string" ? prompt : JSON.stringify(prompt, null, 2))];
}

async function showRow(rid) {
  const r = await api("/api/row/" + encodeURIComponent(rid));
  const out = r.output_marked ? pieces(r.output_marked, "answer") : [r.output ?? ""];
  const kv = (pairs) => el("dl", { class: "kv" }, pairs.filter(p => p[1] !== null && p[1] !== undefined && p[1] !== "").map(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
  const multi = INFO.runs.length > 1;
  show(
    el("h1", {}, `Row ${r.rid}: example ${r.example_id}`),
    kv([["Run", multi ? runLabel(r.run) : null], ["Model", r.model], ["Split", r.split], ["Perturbation", r.perturbation],
      ["Metric", r.metric], ["Score", num(r.score)], ["Outcome", outcomeOf(r)]]),
    el("h2", {}, "Prompt"), ...promptView(r.prompt, r.input),
    r.prompt !== null && r.prompt !== undefined ? [el("h3", {}, "Input"), el("pre", { id: "input" }, r.input ?? "")] : null,
    el("h2", {}, "Output"), el("pre", { id: "output" }, out),
    kv([["Extracted answer", r.extracted === null ? (r.unextracted ? "none could be read (unextracted)" : "not extracted") : r.extracted],
      ["Read by", r.rule ? `${r.rule} (${r.extract_kind})` : (r.extract_kind && r.extracted !== null ? "not recorded" : null)]]),
    el("h2", {}, "Target"), el("pre", { id: "target" }, r.target ?? ""),
    el("h2", {}, "Metrics"), table(["Metric", "Score"], Object.entries(r.metrics).map(([k, v]) => [k, num(v)]), [1]),
    el("h2", {}, "Cost"), kv([["Prompt tokens", r.prompt_tokens], ["Completion tokens", r.completion_tokens],
      ["Latency", r.latency_s === null || r.latency_s === undefined ? null : Number(r.latency_s).toFixed(3) + " s"]]),
    (r.prompt_tokens ?? r.completion_tokens ?? r.latency_s) === null || (r.prompt_tokens ?? r.completion_tokens ?? r.latency_s) === undefined
      ? el("p", { class: "muted" }, "Not recorded (an output from the cache or an import).") : null,
    r.metadata && typeof r.metadata === "object" ? [el("h2", {}, "Metadata"), table(["Field", "Value"], Object.entries(r.metadata).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]))] : null,
    el("h2", {}, "Under each perturbation"),
    table(["Perturbation", "Input (changed words marked)", "Output (changed words marked)", "Score"],
      r.variants.map(v => [v.rid === r.rid ? v.perturbation + " (this row)" : link("row/" + v.rid, {}, v.perturbation),
        el("span", { class: "diff" }, v.input_diff ? pieces(v.input_diff, "diff") : v.input ?? ""),
        el("span", { class: "diff" }, v.output_diff ? pieces(v.output_diff, "diff") : v.output ?? ""), num(v.score)]), [3]),
    r.other_models.length ? [el("h2", {}, "Other models and runs on this example"),
      table(["Run", "Model", "Output", "Extracted", "Score"], r.other_models.map(o => [multi ? runLabel(o.run) : String(o.run), link("row/" + o.rid, {}, o.model), cut(o.output, 300), o.extracted ?? "", num(o.score)]), [4])] : null);
}

// ------------------------------------------------------------------------------------ A/B
function sideOptions() {
  return INFO.runs.flatMap((r, i) => r.models.map(m => [`${i}:${m}`, INFO.runs.length > 1 ? `${runLabel(i)} · ${m}` : m]));
}

async function showAB(params) {
  const q = {};
  for (const k of ["a", "b", "metric", "cluster"]) if (params.get(k)) q[k] = params.get(k);
  let t;
  try { t = await api("/api/ab", q); } catch (e) { show(el("h1", {}, "A/B"), el("p", { class: "error" }, e.message)); return; }
  const a = `${t.a.run}:${t.a.model}`, b = `${t.b.run}:${t.b.model}`;
  const form = el("form", { class: "filters" },
    el("label", {}, "A", el("select", { name: "a" }, sideOptions().map(([v, l]) => el("option", { value: v, selected: v === a ? "selected" : null }, l)))),
    el("label", {}, "B", el("select", { name: "b" }, sideOptions().map(([v, l]) => el("option", { value: v, selected: v === b ? "selected" : null }, l)))),
    el("label", {}, "Metric", el("select", { name: "metric" }, [...new Set(INFO.runs.flatMap(r => r.metrics))].map(m => el("option", { value: m, selected: m === t.metric ? "selected" : null }, m)))),
    el("label", {}, "Clusters (rows that move together)", el("select", { name: "cluster" }, el("option", { value: "" }, "none: examples are independent"),
      Object.keys(INFO.meta).map(m => el("option", { value: m, selected: m === t.cluster ? "selected" : null }, m)))),
    el("button", { type: "submit" }, "Compare"));
  form.addEventListener("submit", ev => {
    ev.preventDefault(); const d = new FormData(form); const next = { a: d.get("a"), b: d.get("b"), metric: d.get("metric") };
    if (d.get("cluster")) next.cluster = d.get("cluster");
    location.hash = "#/ab?" + new URLSearchParams(next).toString();
  });
  const notes = [];
  if (t.n_only_a || t.n_only_b) notes.push(el("p", { class: "note", id: "common" },
    `The two sides hold different examples: ${count(t.n_common)} are in both and are compared; ${count(t.n_only_a)} only in A and ${count(t.n_only_b)} only in B are left out.`));
  const flipLink = (s, direction, n) => n ? link("flips", { a, b, metric: t.metric, split: s.split, direction }, el("span", { class: "flip", "data-n": String(n) }, count(n))) : "0";
  const clustered = t.cluster ? `Rows of one '${t.cluster}' move together: the test is the sign-flip test of the cluster totals and the interval the clustered one.` : "";
  let body;
  if (t.binary) {
    body = [el("p", { class: "muted" }, `Paired by example id on clean inputs, metric ${t.metric}; correct means ${t.correct_means}. ` +
        (clustered || "Test: exact McNemar on the discordant pairs; difference A − B with its 95% interval.")),
      table(["Split", "Pairs", "Both right", "A right, B wrong", "B right, A wrong", "Both wrong", "Accuracy A", "Accuracy B", "A − B", "95% CI", t.cluster ? "p (clustered)" : "p (McNemar)", "Note"],
        t.splits.map(s => [s.split, count(s.n), count(s.both), flipLink(s, "a_only", s.only_a), flipLink(s, "b_only", s.only_b),
          count(s.neither), pct(s.accuracy_a), pct(s.accuracy_b), pct(s.difference), interval(s.low, s.high, pct), pval(s.p_value),
          s.warning || (s.n_clusters ? `${count(s.n_clusters)} clusters` : "")]),
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])];
  } else {
    body = [el("p", { class: "muted", id: "values" }, `Paired by example id on clean inputs, metric ${t.metric}: its scores are not only 0 and 1, so the pairs are compared on their values. ` +
        (clustered || "A − B is the mean paired difference with its paired t-interval; the test is Wilcoxon's signed-rank test (ties left out).")),
      table(["Split", "Pairs", "A higher", "Ties", "B higher", "Mean A", "Mean B", "A − B", "95% CI", t.cluster ? "p (clustered)" : "p (Wilcoxon)", "Note"],
        t.splits.map(s => [s.split, count(s.n), flipLink(s, "a_only", s.wins), count(s.ties), flipLink(s, "b_only", s.losses),
          num(s.mean_a), num(s.mean_b), num(s.difference), interval(s.low, s.high, num), pval(s.p_value),
          s.warning || (s.n_clusters ? `${count(s.n_clusters)} clusters` : "")]),
        [1, 2, 3, 4, 5, 6, 7, 8, 9])];
  }
  show(el("h1", {}, t.binary ? "A/B: which examples flipped" : "A/B: which examples scored higher"), form, ...notes, ...body);
}

async function showFlips(params) {
  const offset = Number(params.get("offset") || 0), limit = 50;
  const q = new URLSearchParams(params); q.set("limit", limit); q.set("offset", offset);
  const f = await api("/api/ab/flips", q);
  const aFirst = params.get("direction") === "a_only";
  const dir = f.binary ? (aFirst ? "A right, B wrong" : "B right, A wrong") : (aFirst ? "A scored higher" : "B scored higher");
  const nav = (off) => { const p = new URLSearchParams(params); p.set("offset", Math.max(0, off)); return "#/flips?" + p.toString(); };
  show(
    el("h1", {}, `Flipped on ${params.get("split")}: ${dir}`),
    el("p", {}, link("ab", { a: params.get("a"), b: params.get("b"), metric: params.get("metric") }, "← back to the flip table")),
    el("div", { class: "pager" }, el("span", { id: "total", "data-total": String(f.total) }, `${count(f.total)} examples`),
      el("a", { href: offset > 0 ? nav(offset - limit) : null }, "← previous"), el("a", { href: offset + limit < f.total ? nav(offset + limit) : null }, "next →")),
    table(["Example", "Input", "Target", "Output A", "Output B", "Score A", "Score B"],
      f.rows.map(r => [r.example_id, cut(r.input, 200), cut(r.target, 120), link("row/" + r.rid_a, {}, cut(r.output_a, 200)), link("row/" + r.rid_b, {}, cut(r.output_b, 200)),
        num(r.score_a), num(r.score_b)]), [5, 6]));
}

// ------------------------------------------------------------------------------------ routing
async function route() {
  const hash = location.hash.replace(/^#\/?/, "");
  const [path, qs] = hash.split("?");
  const params = new URLSearchParams(qs || "");
  for (const id of ["summary", "rows", "ab"]) document.getElementById("nav-" + id)?.classList.toggle("active", path.startsWith(id) || (id === "summary" && !path));
  const started = performance.now();
  pendingFigures = false;
  try {
    if (INFO.rows_state === "reading" && renders > 0) INFO = await api("/api/runs");  // the metadata fields come with the rows
    if (path === "" || path === "summary") await showSummary(params);
    else if (path === "rows") await showRows(params);
    else if (path.startsWith("row/")) await showRow(path.slice(4));
    else if (path === "ab") await showAB(params);
    else if (path === "flips") await showFlips(params);
    else show(el("p", { class: "error" }, "No such page."));
    statusLine.textContent = `${(performance.now() - started).toFixed(0)} ms`;
  } catch (e) {
    show(el("p", { class: "error", id: "error" }, e.message));
  }
  done();
}

async function start() {
  INFO = await api("/api/runs");
  const snapshot = INFO.runs.some(r => r.snapshot);
  if (snapshot) statusLine.textContent = "snapshot of a store being written";
  if (!INFO.ab) document.getElementById("nav-ab").remove();
  window.addEventListener("hashchange", route);
  await route();
}

start().catch(e => { show(el("p", { class: "error", id: "error" }, e.message)); done(); });
