/**
 * The `--inspect` page: one HTML document with its CSS and script inline
 * (no external asset, no build step; it works offline). It reads the feed at
 * `/events` (a snapshot, then each event) and the spans of a request at
 * `/trace?id=…`, and writes everything with `textContent` (no markup is
 * built from the server's data).
 *
 * @internal
 */

const style = `
:root { color-scheme: light dark; --bg:#fff; --fg:#1b1f24; --muted:#6b7280; --line:#e5e7eb; --ok:#15803d; --err:#b91c1c;
  --warn:#b45309; --run:#1d4ed8; --bar:#60a5fa; --panel:#f8fafc; }
@media (prefers-color-scheme: dark) { :root { --bg:#0f1115; --fg:#e5e7eb; --muted:#9ca3af; --line:#262a33; --panel:#161a21;
  --ok:#4ade80; --err:#f87171; --warn:#fbbf24; --run:#93c5fd; --bar:#3b82f6; } }
* { box-sizing: border-box; }
body { margin:0; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; background:var(--bg); color:var(--fg); }
header { display:flex; gap:16px; align-items:center; padding:8px 14px; border-bottom:1px solid var(--line); position:sticky; top:0; background:var(--bg); z-index:2; }
header h1 { font-size:15px; margin:0; }
#status { font-size:12px; padding:2px 8px; border-radius:10px; background:var(--panel); border:1px solid var(--line); }
#status.live { color:var(--ok); } #status.down { color:var(--err); }
.filters { display:flex; gap:8px; margin-left:auto; align-items:center; }
select { font:inherit; background:var(--panel); color:var(--fg); border:1px solid var(--line); border-radius:4px; padding:2px 4px; }
main { display:grid; grid-template-columns: minmax(0,3fr) minmax(0,2fr); gap:12px; padding:12px 14px; }
section { background:var(--panel); border:1px solid var(--line); border-radius:6px; padding:8px 10px; min-width:0; }
section h2 { font-size:13px; margin:0 0 6px; color:var(--muted); text-transform:uppercase; letter-spacing:.04em; }
.wide { grid-column: 1 / -1; }
table { width:100%; border-collapse:collapse; font-variant-numeric: tabular-nums; }
th, td { text-align:left; padding:3px 6px; border-bottom:1px solid var(--line); white-space:nowrap; overflow:hidden; text-overflow:ellipsis; max-width:260px; }
th { color:var(--muted); font-weight:600; font-size:12px; }
td.num, th.num { text-align:right; }
tbody tr { cursor:pointer; } tbody tr:hover { background:rgba(127,127,127,.08); } tr.selected { background:rgba(96,165,250,.18) !important; }
.scroll { max-height:340px; overflow:auto; }
.o-ok { color:var(--ok); } .o-running { color:var(--run); } .o-cancelled { color:var(--warn); } .o-err { color:var(--err); }
.wf-row { display:grid; grid-template-columns: 260px 1fr 70px; align-items:center; gap:6px; padding:1px 0; }
.wf-name { overflow:hidden; text-overflow:ellipsis; white-space:nowrap; }
.wf-track { position:relative; height:12px; background:rgba(127,127,127,.1); border-radius:2px; }
.wf-bar { position:absolute; top:0; bottom:0; background:var(--bar); border-radius:2px; min-width:2px; }
.wf-bar.error { background:var(--err); } .wf-bar.interrupted { background:var(--warn); } .wf-bar.running { opacity:.5; }
.wf-ms { text-align:right; color:var(--muted); font-variant-numeric: tabular-nums; }
dl { display:grid; grid-template-columns:max-content 1fr; gap:2px 10px; margin:0 0 8px; } dt { color:var(--muted); } dd { margin:0; overflow-wrap:anywhere; }
pre { margin:4px 0 0; max-height:180px; overflow:auto; background:var(--bg); border:1px solid var(--line); border-radius:4px; padding:4px 6px; font:12px/1.35 ui-monospace, SFMono-Regular, Menlo, monospace; }
.stderr { color:var(--err); }
.command { border-bottom:1px solid var(--line); padding:4px 0 6px; }
.muted { color:var(--muted); }
.meter { display:inline-block; width:120px; height:8px; background:rgba(127,127,127,.2); border-radius:4px; vertical-align:middle; overflow:hidden; }
.meter > span { display:block; height:100%; background:var(--bar); }
`

const script = `
"use strict";
const params = new URLSearchParams(location.search);
const token = params.get("token");
// The token is in a cookie now: keep it out of the address bar (and of screenshots and history).
if (token) history.replaceState(null, "", location.pathname);
const q = (s) => document.querySelector(s);
const el = (tag, attrs, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) { if (v !== undefined && v !== null) e.setAttribute(k, String(v)); }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(c === undefined || c === null ? "" : String(c)));
  return e;
};
const requests = new Map(), commands = new Map(), traces = new Map();
let audit = [], activity = [], limits = [], selected = null, serverAt = 0, clientAt = 0, dirty = false;
const now = () => serverAt + (performance.now() - clientAt);
const ms = (v) => v === undefined || v === null ? "" : v < 10 ? v.toFixed(2) : v < 1000 ? v.toFixed(1) : (v / 1000).toFixed(2) + " s";
const dur = (v) => { const t = ms(v); return t === "" || t.endsWith(" s") ? t : t + " ms"; };
const bytes = (v) => v === undefined || v === null ? "" : v < 1024 ? v + " B" : (v / 1024).toFixed(1) + " KiB";
const outcomeClass = (o) => o === undefined || o === null ? "o-running" : o === "ok" ? "o-ok" : o === "cancelled" ? "o-cancelled" : "o-err";
const time = (t) => new Date(t).toLocaleTimeString();
const schedule = () => { if (!dirty) { dirty = true; setTimeout(render, 100); } };

function fill(select, values) {
  const current = select.value;
  const wanted = ["", ...[...values].sort()];
  if (select.options.length === wanted.length && [...select.options].every((o, i) => o.value === wanted[i])) return;
  select.replaceChildren(...wanted.map((v) => el("option", { value: v }, v === "" ? "all" : v)));
  select.value = wanted.includes(current) ? current : "";
}

function render() {
  dirty = false;
  const fTool = q("#f-tool"), fOutcome = q("#f-outcome"), fSession = q("#f-session");
  const tools = new Set(), outcomes = new Set(["running"]), sessions = new Set();
  for (const r of requests.values()) { if (r.tool) tools.add(r.tool); if (r.outcome) outcomes.add(r.outcome); sessions.add(r.session); }
  fill(fTool, tools); fill(fOutcome, outcomes); fill(fSession, sessions);
  const rows = [...requests.values()].filter((r) =>
    (!fTool.value || r.tool === fTool.value) &&
    (!fOutcome.value || (fOutcome.value === "running" ? r.running : r.outcome === fOutcome.value)) &&
    (!fSession.value || r.session === fSession.value)).sort((a, b) => b.seq - a.seq).slice(0, 300);
  q("#requests").replaceChildren(...rows.map((r) => {
    const elapsed = r.running ? now() - r.startedAt : r.elapsedMs;
    const tr = el("tr", { "data-seq": r.seq, "data-outcome": r.running ? "running" : r.outcome, class: selected === r.seq ? "selected" : undefined },
      el("td", {}, time(r.startedAt)), el("td", {}, r.method), el("td", { "data-col": "tool" }, r.tool || ""),
      el("td", { title: r.session }, r.session), el("td", { class: "num" }, ms(r.queueMs)), el("td", { class: "num" }, ms(elapsed)),
      el("td", { class: outcomeClass(r.running ? undefined : r.outcome), "data-col": "outcome" }, r.running ? "running" : r.outcome),
      el("td", { class: "num" }, bytes(r.bytesIn)), el("td", { class: "num" }, bytes(r.bytesOut)));
    tr.onclick = () => select(r.seq);
    return tr;
  }));
  q("#count").textContent = rows.length + " shown, " + requests.size + " kept";
  renderDetail(); renderActivity(); renderCommands(); renderAudit(); renderLimits();
}

function select(seq) { selected = seq; const r = requests.get(seq); if (r) loadTrace(r.correlationId); schedule(); }

// The spans of a request (by its correlation id): fetched when it is selected, and again while it runs.
async function loadTrace(id) {
  if (!id) return;
  try { const res = await fetch("/trace?request=" + encodeURIComponent(id)); if (res.ok) { traces.set(id, await res.json()); if (traces.size > 50) traces.delete(traces.keys().next().value); schedule(); } } catch {}
}

function renderDetail() {
  const box = q("#detail");
  const r = selected === null ? undefined : requests.get(selected);
  if (!r) { box.replaceChildren(el("p", { class: "muted" }, "Select a request to see its spans.")); return; }
  const fields = [["method", r.method], ["id", JSON.stringify(r.rpcId)], ["tool", r.tool], ["capability", r.capability], ["session", r.session],
    ["correlation id", r.correlationId], ["principal", r.principal], ["queue wait", dur(r.queueMs)],
    ["elapsed", dur(r.running ? now() - r.startedAt : r.elapsedMs)], ["outcome", r.running ? "running" : r.outcome],
    ["bytes in / out", bytes(r.bytesIn) + " / " + bytes(r.bytesOut)]];
  const dl = el("dl", {}); for (const [k, v] of fields) if (v !== undefined && v !== null && v !== "") dl.append(el("dt", {}, k), el("dd", {}, v));
  const spans = traces.get(r.correlationId) || [];
  const wf = el("div", { id: "waterfall" });
  if (spans.length > 0) dl.append(el("dt", {}, "trace"), el("dd", {}, spans[0].traceId));
  if (spans.length === 0) wf.append(el("p", { class: "muted" }, traces.has(r.correlationId) ? "No spans for this request." : "Loading spans…"));
  else {
    const byParent = new Map(); const ids = new Set(spans.map((s) => s.spanId));
    for (const s of spans) { const p = s.parentId && ids.has(s.parentId) ? s.parentId : ""; if (!byParent.has(p)) byParent.set(p, []); byParent.get(p).push(s); }
    const t0 = Math.min(...spans.map((s) => s.start));
    const t1 = Math.max(...spans.map((s) => s.end ?? now()));
    const total = Math.max(t1 - t0, 0.001);
    const walk = (parent, depth) => { for (const s of (byParent.get(parent) || []).sort((a, b) => a.start - b.start)) {
      const end = s.end ?? now();
      const label = s.name + (s.attributes["mcp.tool.name"] ? " " + s.attributes["mcp.tool.name"] : "");
      wf.append(el("div", { class: "wf-row span", "data-depth": depth, "data-name": s.name, title: JSON.stringify(s.attributes) },
        el("div", { class: "wf-name", style: "padding-left:" + depth * 14 + "px" }, (depth > 0 ? "↳ " : "") + label),
        el("div", { class: "wf-track" }, el("div", { class: "wf-bar " + s.status, style: "left:" + ((s.start - t0) / total * 100).toFixed(2) + "%;width:" + ((end - s.start) / total * 100).toFixed(2) + "%" })),
        el("div", { class: "wf-ms" }, ms(end - s.start))));
      walk(s.spanId, depth + 1); } };
    walk("", 0);
  }
  box.replaceChildren(dl, wf);
}

function renderActivity() {
  q("#activity").replaceChildren(...activity.slice(-100).reverse().map((a) => el("tr", { "data-kind": a.kind },
    el("td", {}, time(a.at)), el("td", { class: a.kind === "cancelled" ? "o-cancelled" : "o-running" }, a.kind), el("td", {}, a.session),
    el("td", {}, a.kind === "progress" ? (a.detail.progress + (a.detail.total !== undefined ? " / " + a.detail.total : "") + (a.detail.message ? " " + a.detail.message : "") + " (token " + a.detail.progressToken + ")")
      : ((a.detail.tool || a.detail.method) + " id " + JSON.stringify(a.detail.id) + " after " + dur(a.detail.elapsedMs))))));
}

function renderCommands() {
  q("#commands").replaceChildren(...[...commands.values()].sort((a, b) => b.seq - a.seq).slice(0, 20).map((c) => {
    const pre = el("pre", {}); for (const l of c.lines.slice(-200)) pre.append(el("span", { class: l.stream === "stderr" ? "stderr" : undefined }, l.line + "\\n"));
    const status = c.running ? "running " + dur(now() - c.startedAt) : (c.outcome + (c.exitCode !== undefined && c.exitCode !== null ? " (exit " + c.exitCode + ")" : c.signal ? " (" + c.signal + ")" : "") + (c.durationMs !== undefined ? " in " + dur(c.durationMs) : ""));
    return el("div", { class: "command", "data-seq": c.seq, "data-running": c.running },
      el("div", {}, el("strong", {}, [c.command, ...c.args].join(" ")), " ", el("span", { class: c.running ? "o-running" : c.exitCode === 0 ? "o-ok" : "o-err" }, status)),
      c.cwd ? el("div", { class: "muted" }, c.cwd) : "", pre);
  }));
}

function renderAudit() {
  q("#audit").replaceChildren(...audit.slice(-200).reverse().map((a) => el("tr", { "data-tool": a.tool },
    el("td", {}, a.time.replace("T", " ").replace("Z", "")), el("td", {}, a.tool), el("td", { class: outcomeClass(a.outcome) }, a.outcome),
    el("td", { class: "num" }, ms(a.durationMs)), el("td", {}, a.principal || ""), el("td", { title: a.arguments }, a.arguments))));
}

function meter(used, limit) { const pct = !limit || limit === Infinity ? 0 : Math.min(100, used / limit * 100); return el("span", { class: "meter" }, el("span", { style: "width:" + pct.toFixed(0) + "%" })); }

function renderLimits() {
  const box = q("#limits"); box.replaceChildren();
  for (const l of limits) {
    const p = l.policy, load = l.load || { active: 0, waiting: 0, limit: p.maxConcurrent, tools: {} };
    const lim = load.limit === null || load.limit === undefined ? Infinity : load.limit;
    const t = el("table", { class: "limits" }, el("tbody", {},
      el("tr", {}, el("th", {}, "slots in use"), el("td", { "data-col": "active" }, load.active + " / " + (lim === Infinity || p.maxConcurrent === 0 ? "no limit" : lim)), el("td", {}, meter(load.active, lim))),
      el("tr", {}, el("th", {}, "queued"), el("td", { "data-col": "waiting" }, load.waiting + " / " + p.maxQueued), el("td", {}, meter(load.waiting, p.maxQueued))),
      el("tr", {}, el("th", {}, "on overload"), el("td", {}, p.onOverload), el("td", {})),
      el("tr", {}, el("th", {}, "timeout"), el("td", {}, typeof p.timeoutMs === "number" && p.timeoutMs > 0 ? dur(p.timeoutMs) : "none"), el("td", {})),
      el("tr", {}, el("th", {}, "queue timeout"), el("td", {}, typeof p.queueTimeoutMs === "number" && p.queueTimeoutMs > 0 ? dur(p.queueTimeoutMs) : "no limit"), el("td", {})),
      el("tr", {}, el("th", {}, "max result"), el("td", {}, bytes(p.maxResultBytes)), el("td", {})),
      ...Object.entries(load.tools).map(([name, v]) => { const own = (p.tools[name] || {}).maxConcurrent; return el("tr", { "data-tool": name }, el("th", {}, name), el("td", {}, v.active + " running" + (own !== undefined ? " / " + own : "") + ", " + v.waiting + " queued"), el("td", {}, meter(v.active, own))); })));
    box.append(t);
  }
}

function apply(event) {
  switch (event.type) {
    case "snapshot":
      requests.clear(); commands.clear();
      for (const r of event.requests) requests.set(r.seq, r);
      for (const c of event.commands) commands.set(c.seq, c);
      audit = event.audit.slice(); activity = event.activity.slice(); limits = event.limits;
      serverAt = event.at; clientAt = performance.now();
      if (selected !== null) select(selected);
      break;
    case "request": {
      requests.set(event.request.seq, event.request);
      if (requests.size > 500) requests.delete(requests.keys().next().value);
      if (selected === event.request.seq) loadTrace(event.request.correlationId);
      break; }
    case "tick": {
      serverAt = event.at; clientAt = performance.now(); limits = event.limits;
      for (const r of event.running) { const v = requests.get(r.seq); if (v) Object.assign(v, r); if (r.seq === selected) loadTrace(r.correlationId); }
      break; }
    case "command": { const prev = commands.get(event.command.seq); commands.set(event.command.seq, { ...event.command, lines: prev ? prev.lines : [] }); break; }
    case "line": { const c = commands.get(event.seq); if (c) { c.lines.push({ stream: event.stream, line: event.line }); if (c.lines.length > 400) c.lines.shift(); } break; }
    case "audit": audit.push(event.audit); if (audit.length > 500) audit.shift(); break;
    case "activity": activity.push(event.activity); if (activity.length > 300) activity.shift(); break;
  }
  schedule();
}

function connect() {
  const source = new EventSource("/events");
  source.onopen = () => { q("#status").textContent = "live"; q("#status").className = "live"; };
  source.onerror = () => { q("#status").textContent = "reconnecting"; q("#status").className = "down"; };
  source.onmessage = (m) => apply(JSON.parse(m.data));
}
for (const id of ["#f-tool", "#f-outcome", "#f-session"]) q(id).addEventListener("change", render);
setInterval(() => { for (const r of requests.values()) if (r.running) { schedule(); break; } }, 500);
connect();
`

/** The page's HTML. */
export const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>mcp-runtime inspect</title>
<style>${style}</style>
</head>
<body>
<header>
  <h1>mcp-runtime inspect</h1>
  <span id="status">connecting</span>
  <span id="count" class="muted"></span>
  <div class="filters">
    <label>tool <select id="f-tool"><option value="">all</option></select></label>
    <label>outcome <select id="f-outcome"><option value="">all</option></select></label>
    <label>session <select id="f-session"><option value="">all</option></select></label>
  </div>
</header>
<main>
  <section>
    <h2>Requests</h2>
    <div class="scroll"><table>
      <thead><tr><th>time</th><th>method</th><th>tool</th><th>session</th><th class="num">queue ms</th><th class="num">elapsed ms</th><th>outcome</th><th class="num">in</th><th class="num">out</th></tr></thead>
      <tbody id="requests"></tbody>
    </table></div>
  </section>
  <section>
    <h2>Request</h2>
    <div id="detail"></div>
  </section>
  <section>
    <h2>Limits and load</h2>
    <div id="limits"></div>
  </section>
  <section>
    <h2>Progress and cancellations</h2>
    <div class="scroll"><table><tbody id="activity"></tbody></table></div>
  </section>
  <section class="wide">
    <h2>Command runs</h2>
    <div id="commands" class="scroll"></div>
  </section>
  <section class="wide">
    <h2>Audit trail</h2>
    <div class="scroll"><table>
      <thead><tr><th>time</th><th>tool</th><th>outcome</th><th class="num">ms</th><th>principal</th><th>arguments</th></tr></thead>
      <tbody id="audit"></tbody>
    </table></div>
  </section>
</main>
<script>${script}</script>
</body>
</html>
`
