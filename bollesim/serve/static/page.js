// The what-if page: draws the ruleset's form from its declaration (GET /api/form), sends
// every change (POST /api/odds) and shows the odds the server streams back (/api/events).
(() => {
"use strict";

const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c != null) node.append(c);
  return node;
};
const clone = (x) => JSON.parse(JSON.stringify(x));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const pct = (x) => (x == null ? "–" : (100 * x).toFixed(1) + "%");
const signed = (x) => (x >= 0 ? "+" : "−") + Math.abs(100 * x).toFixed(1);
const article = (label) => (/^[aeiou]/i.test(label) ? "an " : "a ") + label;
const FIRST_PARAMS = 6;  // parameters shown before the others fold (plan has 23)

const page = {
  model: null,       // GET /api/form
  base: null,        // the shipped ruleset's data
  current: null,     // the edited data
  policy: null,      // name
  params: {},        // name -> value
  family: null,      // "fire_at_turn.t"
  familyChosen: false,
  posting: false,    // an odds request is on its way to the server
  again: false,      // a change was made while it was: send once its answer is in
  job: 0,            // the job whose odds are shown
  changedAt: 0,      // when the change of that job was made (ms)
  last: null,        // the latest snapshot received
  triggerKey: "",
  ready: false,
  errors: [],
  widgets: [],       // {node, path}: every value on the form
  rowsLabel: {},     // rows path -> label column
  pinned: null,      // the setting A: {edits, policy, params}
  exact: [],         // the exact odds of the current rules (rules/odds.py)
  readings: {},      // the variant of each reading the current rules play (the server says)
};

// ------------------------------------------------------------------ paths into the data

function getAt(root, path) {
  let node = root;
  for (const part of path) {
    if (node == null) return undefined;
    node = node[part];
  }
  return node;
}

function setAt(root, path, value) {
  let node = root;
  for (const part of path.slice(0, -1)) node = node[part];
  node[path[path.length - 1]] = value;
}

// A loader key path (`map.positions[K2].fp`, `chits.groups`) as a path into the data.
function parsePath(text) {
  const out = [];
  let done = "";
  for (const piece of text.split(".")) {
    const m = /^([A-Za-z0-9_]+)(?:\[([^\]]+)\])?$/.exec(piece);
    if (!m) return null;
    out.push(m[1]);
    done = done ? done + "." + m[1] : m[1];
    if (m[2] !== undefined) {
      const rows = getAt(page.current, out) || [];
      const label = page.rowsLabel[done];
      let i = rows.findIndex((r) => label && r[label] === m[2]);
      if (i < 0) i = Number(m[2]);
      out.push(i);
      done += `[${m[2]}]`;
    }
  }
  return out;
}

function rowLabel(rowsEntry, row, i) {
  const v = rowsEntry.label ? row[rowsEntry.label] : undefined;
  return typeof v === "string" ? v : String(i);
}

// ------------------------------------------------------------------ widgets

function hover(meta) {
  return [`${meta.path}: ${meta.meaning || ""}`, meta.allowed ? `allowed: ${meta.allowed}` : "",
          meta.source ? `source: ${meta.source}` : ""].filter(Boolean).join("\n");
}

function track(node, path, keyPath, meta, fallback) {
  node.dataset.path = keyPath;
  node.title = hover({...meta, path: keyPath});
  page.widgets.push({node, path, fallback});
  return node;
}

// One widget for a value of `kind` at `path` (data) named `keyPath` (loader messages).
function widget(kind, path, keyPath, meta, fallback) {
  const value = getAt(page.current, path) ?? fallback;
  if (kind.type === "int" || kind.type === "text") {
    const input = el("input", {class: kind.type, type: "text", value: value ?? "",
                                inputmode: kind.type === "int" ? "numeric" : "text"});
    input.addEventListener("input", () => {
      const raw = input.value.trim();
      let v = raw;
      if (kind.type === "int" && /^-?\d+$/.test(raw) && Number.isSafeInteger(Number(raw))) v = Number(raw);
      change(path, v);
    });
    return track(input, path, keyPath, meta, fallback);
  }
  if (kind.type === "flag") {
    const box = el("input", {type: "checkbox"});
    box.checked = value === true;
    box.addEventListener("change", () => change(path, box.checked));
    return track(box, path, keyPath, meta, fallback);
  }
  if (kind.type === "choice") {
    const select = el("select");
    const options = kind.options.includes(value) || value === undefined ? kind.options : [...kind.options, value];
    for (const o of options) select.append(el("option", {value: o, text: o === "" ? "—" : o}));
    select.value = value ?? "";
    select.addEventListener("change", () => change(path, select.value));
    return track(select, path, keyPath, meta, fallback);
  }
  if (kind.type === "mask") {
    const box = el("span", {class: "mask"});
    const chosen = Array.isArray(value) ? value : [];
    for (const o of kind.options) {
      const input = el("input", {type: "checkbox"});
      input.checked = chosen.includes(o);
      const label = el("label", {class: input.checked ? "on" : ""}, input, o);
      input.addEventListener("change", () => {
        label.classList.toggle("on", input.checked);
        const now = getAt(page.current, path) ?? fallback ?? [];
        const next = kind.options.filter((x) => (x === o ? input.checked : now.includes(x)));
        change(path, next);
      });
      box.append(label);
    }
    return track(box, path, keyPath, meta, fallback);
  }
  if (kind.type === "record") {
    const box = el("span", {class: "record"});
    for (const k of kind.keys) {
      box.append(el("span", {text: k.name}),
                 widget(k.kind, [...path, k.name], `${keyPath}.${k.name}`, {...meta, meaning: k.meaning, allowed: k.allowed}, k.default));
    }
    return box;
  }
  if (kind.type === "list") return listWidget(kind, path, keyPath, meta, value || []);
  return el("span", {text: JSON.stringify(value)});
}

function listWidget(kind, path, keyPath, meta, value) {
  const table = el("table", {class: "grid"});
  const axes = page.model.axes[keyPath] ? getAt(page.current, parsePath(page.model.axes[keyPath])) : null;
  if (kind.item.type === "list") {              // a grid: rows of the outer list
    if (axes) table.append(el("tr", {}, el("th", {text: "first \\ second"}), ...axes.map((a) => el("th", {text: a}))));
    value.forEach((row, i) => {
      const tr = el("tr", {}, el("th", {text: axes ? axes[i] : String(i + 1)}));
      for (let j = 0; j < (Array.isArray(row) ? row.length : 0); j++) {
        tr.append(el("td", {}, widget(kind.item.item, [...path, i, j], `${keyPath}[${i}][${j}]`, meta)));
      }
      table.append(tr);
    });
  } else {                                      // one row, indexed from 1
    table.append(el("tr", {}, ...value.map((_, i) => el("th", {text: String(i + 1)}))));
    table.append(el("tr", {}, ...value.map((_, i) => el("td", {}, widget(kind.item, [...path, i], `${keyPath}[${i}]`, meta)))));
  }
  const box = el("div", {class: "list"}, table);
  track(box, path, keyPath, meta);
  const caption = kind.shape;
  if (kind.length == null) {
    const more = el("button", {type: "button", title: "one more value", text: "+"});
    const fewer = el("button", {type: "button", title: "one value fewer", text: "−"});
    more.addEventListener("click", () => {
      const now = clone(getAt(page.current, path) || []);
      now.push(now.length ? clone(now[now.length - 1]) : (kind.item.type === "int" ? kind.item.min : ""));
      change(path, now, true);
    });
    fewer.addEventListener("click", () => {
      const now = clone(getAt(page.current, path) || []);
      if (now.length) now.pop();
      change(path, now, true);
    });
    box.append(el("div", {class: "caption"}, (caption ? caption + " · " : ""), fewer, " ", more));
  } else if (caption) {
    box.append(el("div", {class: "caption", text: caption}));
  }
  return box;
}

function rowsWidget(entry, path) {
  const rows = getAt(page.current, path) || [];
  const table = el("table", {class: "grid rows"});
  table.append(el("tr", {}, ...entry.columns.map((c) => el("th", {text: c.name, title: `${c.meaning}\nallowed: ${c.allowed}`}))));
  rows.forEach((row, i) => {
    const name = `${entry.path}[${rowLabel(entry, row, i)}]`;
    const source = row.source || entry.source;
    table.append(el("tr", {title: `${name}\nsource: ${source}`}, ...entry.columns.map((c) => el("td", {},
      widget(c.kind, [...path, i, c.name], `${name}.${c.name}`, {meaning: c.meaning, allowed: c.allowed, source}, c.default)))));
  });
  const box = el("div", {class: "block"}, el("span", {class: "name", text: entry.path}),
                 el("span", {class: "meaning", text: entry.meaning}), table);
  return track(box, path, entry.path, {meaning: entry.meaning, source: entry.source});
}

function keyRow(entry, path, source, grid) {
  const meta = {meaning: entry.meaning, allowed: entry.allowed, source};
  const scalar = !["list", "record"].includes(entry.kind.type);
  const w = widget(entry.kind, path, entry.path, meta, entry.default);
  if (scalar) {
    grid.append(el("span", {class: "name", text: entry.name}), el("span", {}, w),
                el("span", {class: "meaning", text: entry.meaning}));
    return null;
  }
  return el("div", {class: "block"}, el("span", {class: "name", text: entry.name}),
            el("span", {class: "meaning", text: entry.meaning}), w);
}

function card(title, source, open) {
  const details = el("details", {class: "card"});
  details.open = open;
  details.append(el("summary", {}, title, el("span", {class: "src", text: source ? "source: " + source : ""})));
  const body = el("div", {class: "body"});
  details.append(body);
  return [details, body];
}

const OPEN = new Set(["roe", "tracks", "order_matrix", "damage", "enemy_action_markers"]);

function drawTables() {
  page.widgets = [];
  const root = $("tables");
  const opened = new Set([...root.querySelectorAll("details[open]")].map((d) => d.dataset.name));
  const first = !root.childElementCount;
  root.replaceChildren();
  for (const entry of page.model.entries) {
    const open = first ? OPEN.has(entry.name) : opened.has(entry.name);
    if (entry.type === "table") {
      const source = (page.current[entry.name] || {}).source || entry.source;
      const [details, body] = card(entry.name, source, open);
      details.dataset.name = entry.name;
      const grid = el("div", {class: "keys"});
      body.append(grid);
      for (const sub of entry.entries) {
        if (sub.type === "rows") body.append(rowsWidget(sub, [entry.name, sub.name]));
        else {
          const block = keyRow(sub, [entry.name, sub.name], source, grid);
          if (block) body.append(block);
        }
      }
      if (!grid.childElementCount) grid.remove();
      root.append(details);
    } else if (entry.type === "rows") {
      const [details, body] = card(entry.name, entry.source, open);
      details.dataset.name = entry.name;
      body.append(rowsWidget(entry, [entry.name]));
      root.append(details);
    } else {
      const [details, body] = card(entry.name, "", open);
      details.dataset.name = entry.name;
      const grid = el("div", {class: "keys"});
      body.append(grid);
      keyRow(entry, [entry.name], "", grid);
      root.append(details);
    }
  }
  drawExact();
  markChanged();
}

// The exact odds of the current rules (rules/odds.py), each under the table it follows.
function drawExact() {
  document.querySelectorAll(".exact").forEach((n) => n.remove());
  for (const t of page.exact) {
    const body = document.querySelector(`details[data-name="${CSS.escape(t.key)}"] > .body`);
    if (!body) continue;
    let box = body.querySelector(":scope > .exact");
    if (!box) { box = el("div", {class: "exact", "data-key": t.key}); body.append(box); }
    const table = el("table", {}, el("tr", {}, ...t.columns.map((c) => el("th", {text: c}))));
    for (const row of t.rows) {
      table.append(el("tr", {}, ...row.map((c) => (c && typeof c === "object"
        ? el("td", {class: "chance", title: `exactly ${c.exact}`, text: c.text})
        : el("td", {text: c == null ? "–" : String(c)})))));
    }
    box.append(el("h4", {}, t.title, el("span", {class: "src", text: t.source})), table);
  }
}

function markChanged() {
  for (const w of page.widgets) {
    const now = getAt(page.current, w.path) ?? w.fallback;
    const was = getAt(page.base, w.path) ?? w.fallback;
    w.node.classList.toggle("changed", !same(now, was));
  }
}

// ------------------------------------------------------------------ readings

function drawReadings(active = page.readings) {
  const root = $("readings");
  root.replaceChildren();
  for (const r of page.model.readings) {
    const select = el("select", {"data-reading": r.id});
    for (const v of r.variants) select.append(el("option", {value: v.name, text: v.name, title: v.description + (v.gives_up ? `\ngives up: ${v.gives_up}` : "")}));
    const playing = active[r.id] || r.default;
    if (playing === "custom") select.append(el("option", {value: "custom", text: "custom (your values)"}));
    select.value = playing;
    select.dataset.playing = playing;
    select.disabled = r.variants.length < 2;
    select.title = r.fixed ? `no alternative: ${r.fixed}` : r.variants.map((v) => `${v.name}: ${v.description}`).join("\n");
    select.addEventListener("change", () => {
      const variant = r.variants.find((v) => v.name === select.value);
      if (!variant) return;
      const before = clone(page.current);
      const was = r.variants.find((v) => v.name === select.dataset.playing);  // none: custom
      const overwritten = [];  // the values the user set, not the shipped or the switch's own
      for (const [key, value] of Object.entries(variant.values)) {
        const path = parsePath(key);
        if (!path) continue;
        const now = getAt(page.current, path);
        if (!same(now, value) && !same(now, getAt(page.base, path)) && !(was && same(now, was.values[key]))) {
          overwritten.push([key, now, value]);
        }
        setAt(page.current, path, clone(value));
      }
      select.dataset.playing = variant.name;
      tell(r.id, variant.name, overwritten, before);
      drawTables();
      schedule();
    });
    root.append(el("span", {class: "id", text: r.id}), select, el("span", {class: "meaning", text: r.meaning}));
  }
}

// What a reading switch overwrote of the user's own values, with a way back.
function tell(id, name, overwritten, before) {
  const box = $("notice");
  box.hidden = !overwritten.length;
  if (!overwritten.length) { box.replaceChildren(); return; }
  const text = (v) => JSON.stringify(v).replaceAll(",", ", ");
  const undo = el("button", {type: "button", id: "undo-reading", text: "undo"});
  const readings = page.readings;
  undo.addEventListener("click", () => {
    page.current = before;
    page.readings = readings;
    box.hidden = true;
    drawTables();
    drawReadings();
    schedule();
  });
  box.replaceChildren(`${id} = ${name} replaced ${overwritten.length === 1 ? "a value" : "values"} you had changed: `,
    ...overwritten.flatMap(([key, was, now], i) => [i ? "; " : "", el("code", {"data-key": key, text: key}),
                                                   ` ${text(was)} → ${text(now)}`]), undo);
  box.scrollIntoView({block: "nearest"});
}

// ------------------------------------------------------------------ the policy

function drawPlay() {
  const root = $("play");
  root.replaceChildren();
  const select = el("select", {id: "policy"});
  for (const p of page.model.policies) select.append(el("option", {value: p.name, text: p.name}));
  select.value = page.policy;
  select.addEventListener("change", () => choosePolicy(select.value, {}));
  const row = [el("span", {text: "policy"}), select];
  if (page.model.best) {
    const best = el("button", {type: "button", id: "best", text: "best found by optimise",
                               title: `${page.model.best.policy} ${JSON.stringify(page.model.best.params)}`});
    best.addEventListener("click", () => choosePolicy(page.model.best.policy, page.model.best.params));
    row.push(best);
  } else row.push(el("span"));
  root.append(...row);
  const policy = page.model.policies.find((p) => p.name === page.policy);
  root.append(el("div", {class: "doc", text: policy.doc}));
  let box = root;
  const fold = policy.parameters.length > FIRST_PARAMS + 2 ? FIRST_PARAMS : Infinity;
  policy.parameters.forEach((p, i) => {
    if (i === fold) {
      const more = el("details", {id: "more-params"},
                      el("summary", {text: `${policy.parameters.length - FIRST_PARAMS} more parameters`}));
      box = el("div", {class: "more"});
      more.append(box);
      more.open = policy.parameters.slice(FIRST_PARAMS).some((q) => page.params[q.name] !== q.default);
      root.append(more);
    }
    box.append(el("span", {text: p.label || p.name, title: p.doc}), ...paramWidget(p));
  });
}

// A parameter's widget: its declared choices by name, a 0/1 switch as a box, else a slider.
function paramWidget(p) {
  const set = (v) => { page.params[p.name] = v; schedule(); };
  if (p.choices) {
    const select = el("select", {"data-param": p.name, title: p.doc});
    p.choices.forEach((name, i) => select.append(el("option", {value: String(i), text: name})));
    select.value = String(page.params[p.name]);
    select.addEventListener("change", () => set(Number(select.value)));
    return [select, el("span")];
  }
  if (p.low === 0 && p.high === 1 && Number.isInteger(p.default)) {
    const box = el("input", {type: "checkbox", "data-param": p.name, title: p.doc});
    box.checked = page.params[p.name] === 1;
    const shown = el("span", {class: "value", text: box.checked ? "yes" : "no"});
    box.addEventListener("change", () => { shown.textContent = box.checked ? "yes" : "no"; set(box.checked ? 1 : 0); });
    return [el("span", {}, box), shown];
  }
  const whole = [p.low, p.high, p.default].every(Number.isInteger);
  const slider = el("input", {type: "range", min: p.low, max: p.high, step: whole ? 1 : (p.high - p.low) / 100,
                              "data-param": p.name, title: p.doc});
  slider.value = page.params[p.name];
  const shown = el("span", {class: "value"});
  const show = () => { shown.textContent = p.never != null && Number(slider.value) === p.never ? "never" : String(Number(slider.value)); };
  show();
  slider.addEventListener("input", () => { page.params[p.name] = Number(slider.value); show(); schedule(); });
  return [slider, shown];
}

function choosePolicy(name, params, family) {
  page.policy = name;
  const policy = page.model.policies.find((p) => p.name === name);
  page.params = Object.fromEntries(policy.parameters.map((p) => [p.name, params[p.name] ?? p.default]));
  const own = page.model.families.find((f) => f.policy === name);
  if (family && page.model.families.some((f) => f.id === family)) page.family = family;
  else if (own) page.family = own.id;
  $("family").value = page.family;
  drawPlay();
  if (page.model.find) drawFindPlayers();
  schedule();
}

// ------------------------------------------------------------------ talking to the server

function edits() {
  const out = {};
  for (const unit of page.model.units) {
    const path = unit.split(".");
    const now = getAt(page.current, path);
    if (now !== undefined && !same(now, getAt(page.base, path))) out[unit] = now;
  }
  return out;
}

function body(extra = {}) {
  return JSON.stringify({edits: edits(), policy: page.policy, params: page.params, ...extra});
}

async function post(url, payload) {
  const response = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"}, body: payload});
  const type = response.headers.get("content-type") || "";
  const data = type.includes("json") ? await response.json() : await response.text();
  return {status: response.status, data};
}

function change(path, value, redraw = false) {
  setAt(page.current, path, value);
  if (redraw) drawTables(); else markChanged();
  schedule();
}

let timer = null;
function schedule() {
  page.changedAt = performance.now();
  clearTimeout(timer);
  timer = setTimeout(send, 40);
}

// The page's whole state, in its address: a link reopens it.
function state() {
  const policy = page.model.policies.find((p) => p.name === page.policy);
  const params = Object.fromEntries(policy.parameters.filter((p) => page.params[p.name] !== p.default)
                                                    .map((p) => [p.name, page.params[p.name]]));
  const out = {policy: page.policy, params, edits: edits(), family: page.family};
  if (page.pinned) out.pinned = page.pinned;
  return out;
}

function remember() {
  history.replaceState(null, "", "#" + encodeURIComponent(JSON.stringify(state())));
}

function restore() {
  if (!location.hash) return null;
  try {
    const saved = JSON.parse(decodeURIComponent(location.hash.slice(1)));
    return saved && typeof saved === "object" && typeof saved.policy === "string" ? saved : null;
  } catch (e) {
    return null;
  }
}

function applyEdits(data, edited) {
  for (const [unit, value] of Object.entries(edited || {})) {
    if (page.model.units.includes(unit)) setAt(data, unit.split("."), clone(value));
  }
}

// One odds request on its way at a time: two in flight may reach the server in either
// order, and the older one, taking effect last, would replace the newer one's work, whose
// odds then never come. A change made meanwhile is sent when the answer is in.
async function send() {
  if (page.posting) {
    page.again = true;
    $("status").dataset.waiting = "true";
    return;
  }
  page.posting = true;
  try {
    await sendOne();
  } finally {
    page.posting = false;
  }
  if (page.again) {
    page.again = false;
    $("status").dataset.waiting = "false";
    send();
  }
}

async function sendOne() {
  const changedAt = page.changedAt;
  setStatus("playing…", true);
  remember();
  let reply;
  try {
    reply = await post("/api/odds", body({family: page.family, pinned: page.pinned}));
  } catch (e) {
    setStatus("the server does not answer: is `bollesim serve` still running?");
    return;
  }
  if (page.again) return;                      // a newer change is on its way
  if (reply.status === 422) {
    showErrors(reply.data.errors);
    $("odds").classList.add("stale");
    setStatus("fix the marked value: the odds shown are of the last valid rules");
    return;
  }
  if (reply.status !== 200) {
    showErrors([{key: "", message: reply.data.error || String(reply.data)}]);
    return;
  }
  showErrors([]);
  $("odds").classList.remove("stale");
  page.job = reply.data.job;
  page.jobChangedAt = changedAt;
  page.exact = reply.data.exact || [];
  drawExact();
  page.readings = reply.data.readings;
  drawReadings();
  if (page.last && page.last.job === page.job) render(page.last);
}

function showErrors(errors) {
  page.errors = errors;
  document.querySelectorAll(".field-error").forEach((n) => n.remove());
  document.querySelectorAll(".invalid").forEach((n) => n.classList.remove("invalid"));
  const box = $("errors");
  box.hidden = !errors.length;
  box.replaceChildren(...errors.map((e) => el("div", {text: "error: " + e.message})));
  for (const e of errors) {
    const node = fieldOf(e.key);
    if (!node) continue;
    node.classList.add("invalid");
    const details = node.closest("details");
    if (details) details.open = true;
    const note = el("span", {class: "field-error", text: "error: " + e.message});
    placeNote(node, note);
  }
}

// Beside its field, where it can wrap without widening a column: under the table of a
// table's cell, in a row of its own in a grid of keys, else after the field.
function placeNote(node, note) {
  const table = node.closest("table");
  const cell = node.parentElement;
  if (table) table.after(note);
  else if (cell.parentElement && cell.parentElement.classList.contains("keys")) {
    let last = cell;
    while (last.nextElementSibling && last.nextElementSibling.classList.contains("meaning")) last = last.nextElementSibling;
    last.after(note);
  } else node.after(note);
}

function fieldOf(key) {
  let p = key || "";
  while (p) {
    const node = document.querySelector(`[data-path="${CSS.escape(p)}"]`);
    if (node) return node;
    const shorter = p.replace(/(\[[^\]]*\]|\.[^.[]*)$/, "");
    if (shorter === p) break;
    p = shorter;
  }
  return null;
}

function setStatus(text, busy = false) {
  const s = $("status");
  s.textContent = text;
  s.classList.toggle("busy", busy);
}

function listen() {
  const source = new EventSource("/api/events");
  source.onmessage = (event) => {
    const data = JSON.parse(event.data);
    if (data.stopped) {
      source.close();
      setStatus("the server has stopped (bollesim serve): start it again to go on");
      return;
    }
    if (data.ready) {
      if (!page.ready) { page.ready = true; setStatus("engine ready"); schedule(); }
      return;
    }
    if (data.find) {
      workProgress("find", data.find, (f) => `${f.games.toLocaleString("en")} of at most ${f.budget.toLocaleString("en")} games played…`);
      return;
    }
    if (data.luck) {
      workProgress("luck", data.luck, (f) => `${f.games.toLocaleString("en")} of ${f.budget.toLocaleString("en")} games analysed…`);
      return;
    }
    page.last = data;
    if (data.job === page.job) render(data);
  };
  source.onerror = () => setStatus("lost the server: is `bollesim serve` still running?");
}

// ------------------------------------------------------------------ the odds

const minimise = (outcome) => (page.model.outcomes.find((o) => o.outcome === outcome) || {}).minimise;

function diffCell(d, title) {
  const better = minimise(d.outcome) ? d.diff < 0 : d.diff > 0;
  const cls = !d.significant ? "flat" : better ? "up" : "down";
  return el("td", {class: `diff ${cls}`, title: `${title}: paired 95% interval; McNemar p = ${d.p.toPrecision(2)}`},
            signed(d.diff), el("span", {class: "ci", text: `(${signed(d.diff_low)} to ${signed(d.diff_high)})`}));
}

function bar(r) {
  const b = el("div", {class: "bar"});
  b.append(el("div", {class: "span", style: `left:${100 * r.low}%;width:${Math.max(0.5, 100 * (r.high - r.low))}%`}),
           el("div", {class: "mark", style: `left:calc(${100 * r.rate}% - 1px)`}),
           el("div", {class: "base", style: `left:calc(${100 * r.base_rate}% - 1px)`, title: `shipped rules: ${pct(r.base_rate)}`}));
  return b;
}

function render(s) {
  if (s.job === page.job && !page.shownFirst?.[s.job]) {
    page.shownFirst = {[s.job]: Math.round(performance.now() - page.jobChangedAt)};
  }
  const latency = page.shownFirst[s.job];
  const state = s.done ? `done in ${(s.elapsed_ms / 1000).toFixed(1)} s` : "refining…";
  $("count").replaceChildren(
    el("b", {id: "games", "data-games": s.games, text: s.games.toLocaleString("en")}),
    ` games on seed ${s.seed}, each paired with the same game under the shipped rules · ${state} · first answer ${latency} ms after the change`);
  Object.assign($("count").dataset, {latency, done: s.done, games: s.games, job: s.job, digest: s.digest, policy: s.policy});
  setStatus(s.done ? "up to date" : "refining…", !s.done);
  const table = $("rates");
  const withA = s.outcomes.length && s.outcomes[0].pinned;
  const strong = s.outcomes.length && s.outcomes[0].strong;
  const heads = ["outcome", "these rules", "", "shipped", "vs shipped (points)",
                 ...(withA ? ["A", "vs A (points)"] : []), ""];
  table.replaceChildren(el("tr", {}, ...heads.map((h) => el("th", {text: h}))));
  table.classList.toggle("with-a", Boolean(withA));
  for (const r of s.outcomes) {
    const example = el("button", {type: "button", class: "example", text: "example", title: `replay, narrated, a game that ends with ${article(r.label)}`});
    example.addEventListener("click", () => replay(r.outcome, r.label));
    const row = el("tr", {"data-outcome": r.outcome, "data-k": r.k, "data-n": r.n, "data-base-k": r.base_k},
      el("td", {text: r.label}),
      el("td", {class: "rate"}, el("b", {text: pct(r.rate)}), el("span", {class: "ci", text: `${(100 * r.low).toFixed(1)}–${(100 * r.high).toFixed(1)}`})),
      el("td", {}, bar(r)),
      el("td", {class: "rate", text: pct(r.base_rate)}),
      diffCell(r, "against the shipped rules"));
    if (withA) {
      row.dataset.aK = r.pinned.k;
      row.append(el("td", {class: "rate a", text: pct(r.pinned.rate)}),
                 diffCell({...r.pinned, outcome: r.outcome}, "against A"));
    }
    row.append(el("td", {}, example));
    table.append(row);
  }
  drawStrong(s.outcomes, strong);
  drawLosses(s);
  const t = s.trigger;
  const key = t ? `${s.job}/${t.games_per_setting}` : "";
  if (t && key !== page.triggerKey) {
    page.triggerKey = key;
    Object.assign($("trigger").dataset, {games: t.games_per_setting, shipped: t.shipped_line,
                                          current: t.current ?? ""});
    $("trigger-title").replaceChildren(el("b", {text: t.title}), el("br"), t.subtitle);
    vegaEmbed("#trigger", t.spec, {actions: false, renderer: "svg"}).catch((e) => console.error(e));
    $("answer").replaceChildren(...t.answer.map((sentence) => el("li", {text: sentence})));
  }
}

// The strong player on the same games, under these rules and the shipped ones, in a table
// of its own under the odds (the odds table keeps its width), and whose odds moved more.
function drawStrong(outcomes, strong) {
  const table = $("strong-rates");
  table.hidden = !strong;
  $("strong-note").replaceChildren(...(strong ? [strongNote(outcomes)] : []));
  if (!strong) { table.replaceChildren(); return; }
  table.replaceChildren(el("tr", {}, ...[`strong player (${strong.policy})`, "these rules", "shipped",
                                        "vs shipped (points)"].map((h) => el("th", {text: h}))));
  for (const r of outcomes) {
    table.append(el("tr", {"data-outcome": r.outcome, "data-strong-k": r.strong.k,
                           "data-larger": r.strong.larger.which},
      el("td", {text: r.label}), el("td", {class: "rate", text: pct(r.strong.rate)}),
      el("td", {class: "rate", text: pct(r.strong.base_rate)}),
      diffCell({...r.strong, outcome: r.outcome}, "the strong player, against the shipped rules")));
  }
}

// Whose odds the change moved more, outcome by outcome: the page's policy's or the strong
// player's (analysis.larger_change, on the same games).
function strongNote(outcomes) {
  const who = {a: page.policy, b: "the strong player"};
  const parts = outcomes.map((r) => {
    const l = r.strong.larger;
    const size = `${signed(r.diff)} against ${signed(r.strong.diff)}`;
    return l.which === "neither" ? `${r.label}: about as much (${size})`
      : `${r.label}: ${who[l.which]}'s, by ${(100 * Math.abs(l.more)).toFixed(1)} points (${size})`;
  });
  return `Whose odds these rules moved more, ${page.policy}'s or the strong player's (same games): ${parts.join("; ")}.`;
}

function drawLosses(s) {
  const l = s.losses;
  if (!l) return;
  page.losses = {key: `${s.job}/${l.games}`, ...l};
  $("losses-count").textContent = `${l.defeats.toLocaleString("en")} of ${l.games.toLocaleString("en")} games end in ${article(l.label)}; each table: by whom, what or where`;
  $("loss-tables").replaceChildren(...l.tables.map((t) => {
    const table = el("table", {class: "loss", "data-factor": t.factor},
      el("tr", {}, ...[t.title, "games", "share", "of all games"].map((h) => el("th", {text: h}))));
    for (const r of t.rows) {
      table.append(el("tr", {"data-value": r.value, "data-k": r.k},
        el("td", {text: r.value}), el("td", {class: "rate", text: r.k.toLocaleString("en")}),
        el("td", {class: "rate", text: pct(r.share)}), el("td", {class: "rate", text: pct(r.rate)})));
    }
    return table;
  }));
  drawLossCharts();
}

function drawLossCharts() {
  const l = page.losses;
  const box = $("loss-charts");
  if (!l || !$("losses").open || box.dataset.key === l.key) return;  // a closed card has no width
  box.dataset.key = l.key;
  box.replaceChildren();
  l.charts.forEach((c, i) => {
    const chart = el("div", {class: "loss-chart", id: `loss-chart-${i}`});
    box.append(el("p", {class: "chart-title"}, el("b", {text: c.title}), el("br"), c.subtitle), chart);
    vegaEmbed(chart, c.spec, {actions: false, renderer: "svg"}).catch((e) => console.error(e));
  });
}

// ------------------------------------------------------------------ taking it away

async function save() {
  const reply = await post("/api/partial", JSON.stringify({edits: edits()}));
  if (reply.status !== 200) { showErrors(reply.data.errors || [{key: "", message: reply.data.error}]); return; }
  const link = el("a", {href: URL.createObjectURL(new Blob([reply.data], {type: "application/toml"})), download: "whatif.toml"});
  document.body.append(link);
  link.click();
  link.remove();
  setStatus(`saved whatif.toml: check it with \`${page.model.check_partial}\``);
}

async function report() {
  const tab = window.open("", "_blank");
  if (tab) tab.document.body.textContent = "Playing the current settings and writing the balance report…";
  setStatus("writing the balance report…", true);
  const reply = await post("/api/report", body({family: page.family}));
  if (reply.status !== 200) {
    if (tab) tab.close();
    showErrors(reply.data.errors || [{key: "", message: reply.data.error}]);
    return;
  }
  setStatus("the report is open in a new tab");
  if (tab) tab.location = reply.data.url; else window.location = reply.data.url;
}

async function replay(outcome, label) {
  const box = $("replay");
  box.hidden = false;
  $("replay-title").textContent = `Looking for a game that ends with ${article(label)}…`;
  $("replay-command").textContent = "";
  $("replay-text").textContent = "";
  box.scrollIntoView({block: "nearest"});
  const reply = await post("/api/replay", body({outcome}));
  if (reply.status !== 200) { $("replay-title").textContent = reply.data.error || "no example"; return; }
  if (reply.data.game == null) { $("replay-title").textContent = reply.data.message; return; }
  $("replay-title").textContent = `Game ${reply.data.game} (seed ${reply.data.seed}): ${article(label)}`;
  $("replay-command").textContent = reply.data.command;
  $("replay-text").textContent = reply.data.lines.join("\n");
}

function pin() {
  if (page.errors.length) { setStatus("fix the marked value first: A must be a valid setting"); return; }
  page.pinned = {edits: edits(), policy: page.policy, params: {...page.params}};
  drawPinned();
  schedule();
}

function drawPinned() {
  const box = $("pinned");
  box.hidden = !page.pinned;
  if (!page.pinned) { box.replaceChildren(); return; }
  const a = page.pinned;
  const policy = page.model.policies.find((p) => p.name === a.policy);
  const params = policy.parameters.filter((p) => a.params[p.name] !== p.default)
                                  .map((p) => `${p.name}=${p.choices ? p.choices[a.params[p.name]] : a.params[p.name]}`);
  const keys = Object.keys(a.edits);
  const unpin = el("button", {type: "button", id: "unpin", text: "unpin"});
  unpin.addEventListener("click", () => { page.pinned = null; drawPinned(); schedule(); });
  box.replaceChildren(el("b", {text: "A"}), `: ${a.policy}${params.length ? " " + params.join(", ") : ""}; `,
    keys.length ? `rules: ${keys.join(", ")}` : "the shipped rules", unpin);
}

function reset() {
  page.current = clone(page.base);
  page.readings = {};
  drawTables();
  drawReadings();
  schedule();
}

// ------------------------------------------------------------------ find a change

// The panel's choices: the game's outcomes, the page's policies (the page's own with its
// parameters), the keys the game searches unless told otherwise (GET /api/form's find).
function drawFind() {
  const f = page.model.find;
  $("find-outcome").replaceChildren(...f.outcomes.map((o) => el("option", {value: o.outcome, text: o.label})));
  drawFindPlayers();
  $("find-keys").value = f.keys.join(", ");
  Object.assign($("find-budget"), {min: f.budget.low, max: f.budget.high, value: f.budget.default});
  $("find-tolerance").value = 100 * f.tolerance;
  const comparison = $("find-comparison");
  comparison.addEventListener("change", () => { $("find-tolerance-box").hidden = comparison.value !== "equals"; });
  $("find-go").addEventListener("click", findChange);
  $("find-cancel").addEventListener("click", () => post("/api/find/cancel", "{}"));
}

function drawFindPlayers() {
  const select = $("find-player");
  const chosen = select.value;
  select.replaceChildren(...page.model.policies.map((p) => el("option", {value: p.name,
    text: p.name === page.policy ? `${p.name} (as set above)` : p.name})));
  select.value = chosen || page.policy;
}

function findRequest() {
  const player = $("find-player").value;
  const comparison = $("find-comparison").value;
  const request = {edits: edits(), outcome: $("find-outcome").value, player,
                   params: player === page.policy ? page.params : {}, comparison,
                   value: Number($("find-value").value) / 100, budget: Number($("find-budget").value),
                   keys: $("find-keys").value.split(",").map((k) => k.trim()).filter(Boolean)};
  if (comparison === "equals") request.tolerance = Number($("find-tolerance").value) / 100;
  return request;
}

async function findChange() {
  const request = findRequest();
  const a = await runWork("find", "/api/find", request, "searching…",
                          "fix the marked value first: the search starts from the rules on the page");
  if (a) drawFindAnswer(a, request);
}

// A long piece of work of the server ("find", "luck"): its panel busy meanwhile, its
// progress shown from the event stream; its answer, or null (said in the panel).
async function runWork(kind, url, request, doing, fixFirst) {
  $(`${kind}-answer`).replaceChildren();
  workBusy(kind, true, `${doing} (the odds above wait meanwhile)`);
  let reply;
  try {
    reply = await post(url, JSON.stringify(request));
  } catch (e) {
    workBusy(kind, false, "the server does not answer: is `bollesim serve` still running?");
    return null;
  }
  if (reply.status === 422) {
    showErrors(reply.data.errors);
    workBusy(kind, false, fixFirst);
    return null;
  }
  if (reply.status !== 200) {
    workBusy(kind, false, "");
    $(`${kind}-answer`).replaceChildren(el("p", {class: "error", text: "error: " + (reply.data.error || String(reply.data))}));
    return null;
  }
  const a = reply.data;
  if (a.cancelled) { workBusy(kind, false, `cancelled after ${a.games.toLocaleString("en")} games`); return null; }
  workBusy(kind, false, `done in ${a.seconds} s`);
  return a;
}

function workBusy(kind, busy, text) {
  $(`${kind}-go`).disabled = busy;
  $(`${kind}-cancel`).hidden = !busy;
  const bar = $(`${kind}-progress`);
  bar.hidden = !busy;
  if (busy) bar.removeAttribute("value");
  $(`${kind}-status`).textContent = text;
}

// A progress message of the work of `kind` running (on the page's event stream).
function workProgress(kind, f, words) {
  if (!$(`${kind}-cancel`).hidden && f.budget) {
    $(`${kind}-progress`).value = Math.min(1, f.games / f.budget);
    $(`${kind}-status`).textContent = words(f);
  }
}

function verdict(e) {
  return e.sure ? "met at 95%" : e.met ? "met (its 95% interval not wholly)" : "not met";
}

function drawFindAnswer(a, request) {
  const line = (label, e) => el("li", {}, `${label}: `, el("b", {text: pct(e.value)}),
    ` (${(100 * e.low).toFixed(1)}–${(100 * e.high).toFixed(1)}) `,
    el("span", {class: e.met ? "met" : "missed", text: verdict(e)}));
  const items = [line("the rules as they are", a.start)];
  if (a.change) items.push(line(`with ${a.change.label}`, a.change));
  const box = [el("p", {class: "sentence", text: a.sentence}),
    el("ul", {"data-target": a.target}, ...items),
    el("p", {class: "cost", text: `${a.target}: ${a.changes_tried} rule sets raced on games of seed ${a.search_seed}, `
      + `each certified on ${a.holdout_games.toLocaleString("en")} held-out games of seed ${a.holdout_seed}; `
      + `${a.games.toLocaleString("en")} games in ${a.seconds} s.`})];
  if (a.change) {
    const open = el("button", {type: "button", id: "find-open", text: "Open as the current setting",
                               title: "Set the form to these rules and play them with the target's player"});
    open.addEventListener("click", () => openChange(a.change.edits, request.player, request.params));
    const save = el("a", {href: URL.createObjectURL(new Blob([a.change.patch], {type: "application/toml"})),
                          download: "change.toml", text: "Save the change as partial TOML"});
    box.push(el("div", {}, open, save));
  }
  $("find-answer").replaceChildren(...box);
}

// The proposal as the page's setting: its edits over the shipped rules, its player.
function openChange(changed, player, params) {
  page.current = clone(page.base);
  applyEdits(page.current, changed);
  page.readings = {};
  drawTables();
  drawReadings();
  choosePolicy(player, params);
  setStatus("opened the change found: the form shows its values");
}

// ------------------------------------------------------------------ luck and the player

// The panel, for a game that declares decisions and a strong player (GET /api/form's luck).
function drawLuck() {
  const l = page.model.luck;
  $("luck").hidden = !l;
  if (!l) return;
  $("luck-games").replaceChildren(...l.games.map((n) => el("option", {value: n, text: n})));
  $("luck-games").value = l.default;
  $("luck-go").addEventListener("click", analyseLuck);
  $("luck-cancel").addEventListener("click", () => post("/api/luck/cancel", "{}"));
}

async function analyseLuck() {
  const request = {edits: edits(), policy: page.policy, params: page.params,
                   games: Number($("luck-games").value)};
  const a = await runWork("luck", "/api/luck", request, "analysing…",
                          "fix the marked value first: the games are played under the rules on the page");
  if (a) drawLuckAnswer(a);
}

function drawLuckAnswer(a) {
  const points = (x) => (100 * x).toFixed(1);
  const box = [el("p", {class: "sentence", text: a.sentence})];
  if (a.costliest.length) {
    box.push(el("p", {text: "The costliest decisions (each one's interval excludes zero):"}),
             el("ol", {class: "costliest"}, ...a.costliest.map((c) => el("li", {"data-error": c.error},
      `game ${c.game}, turn ${c.turn}: ${c.decision}, ${c.taken} where ${c.against} was better by `,
      el("b", {text: `${points(c.error)} points`}), ` (${points(c.low)} to ${points(c.high)})${c.mark ? ", " + c.mark : ""}`))));
  } else {
    box.push(el("p", {text: "No decision of these games is called an error: no option was better beyond its interval."}));
  }
  box.push(el("p", {class: "cost", text: `${a.games.toLocaleString("en")} games of seed ${a.seed} played by ${a.policy} under the rules above; `
    + `values: the probability of '${a.objective}' if ${a.stated_player} plays on from each point, by ${a.values_words}; `
    + `${a.errors_called} errors called in ${a.decisions.toLocaleString("en")} decisions; ${a.seconds} s. `
    + "The same games in a run folder: bollesim analyse --from DIR -n N (docs/analyse.md)."}));
  $("luck-answer").replaceChildren(...box);
}

// ------------------------------------------------------------------ start

async function start() {
  const model = await (await fetch("/api/form")).json();
  page.model = model;
  $("title").textContent = `${model.game} · what if?`;
  document.title = `${model.game} · what if? (bollesim)`;
  page.base = model.values;
  page.current = clone(model.values);
  for (const e of model.entries) {
    if (e.type === "rows") page.rowsLabel[e.path] = e.label;
    for (const sub of e.entries || []) if (sub.type === "rows") page.rowsLabel[sub.path] = sub.label;
  }
  $("losses").addEventListener("toggle", drawLossCharts);
  const family = $("family");
  for (const f of model.families) family.append(el("option", {value: f.id, text: `${f.policy}: ${f.label}`}));
  family.addEventListener("change", () => { page.family = family.value; schedule(); });
  page.family = model.families[0].id;
  const known = (s) => s && model.policies.some((p) => p.name === s.policy);
  const saved = restore();
  const first = [saved, model.best, model.showcase, {policy: model.policies[0].name}].find(known);
  if (first === model.showcase && first !== model.best) $("opened").textContent = `Opened at ${model.showcase.note}. Pick another policy below.`;
  if (first === model.best) $("opened").textContent = "Opened at the best setting found by optimise (--from).";
  if (first === saved) {
    applyEdits(page.current, saved.edits);
    if (known(saved.pinned)) {
      const declared = model.policies.find((p) => p.name === saved.pinned.policy).parameters;
      page.pinned = {edits: saved.pinned.edits || {}, policy: saved.pinned.policy,
                     params: Object.fromEntries(declared.map((p) => [p.name, (saved.pinned.params || {})[p.name] ?? p.default]))};
    }
  }
  drawTables();
  drawReadings();
  drawPinned();
  choosePolicy(first.policy, first.params || {}, first.family);
  page.ready = model.ready;
  setStatus(model.ready ? "engine ready" : "warming up the engine (the first start compiles it: a minute or two)…", !model.ready);
  $("save").addEventListener("click", save);
  $("report").addEventListener("click", report);
  $("reset").addEventListener("click", reset);
  $("pin").addEventListener("click", pin);
  drawFind();
  drawLuck();
  listen();
}

start();
})();
