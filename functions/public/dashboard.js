// The dashboard's browser code: plain JavaScript served as-is, talking to the public API only.
const params = new URLSearchParams(location.search);
// A key never travels in a URL (history, logs, referrers): one left there by an old link is dropped unused.
if (params.has("key")) {
  params.delete("key");
  history.replaceState(null, "", `${location.pathname}?${params}`);
}
const state = {
  user: params.get("user_id") ?? "",
  app: params.get("app_id") ?? "default",
  key: localStorage.getItem("mnemo-key") ?? "",
  // The scheduled decay's parameters, from the health answer.
  lambda: 0,
  threshold: 0,
};
const $ = (selector) => document.querySelector(selector);
const escapeHtml = (text) => String(text ?? "").replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

async function api(path, init = {}) {
  const headers = { "content-type": "application/json", ...(state.key ? { authorization: `Bearer ${state.key}` } : {}) };
  const response = await fetch(path, { ...init, headers });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error?.message ?? response.status);
  return body;
}
const scope = () => `user_id=${encodeURIComponent(state.user)}&app_id=${encodeURIComponent(state.app)}`;

function bars(values, width = 420, height = 140) {
  const max = Math.max(1, ...values);
  const w = width / values.length;
  return `<svg class="chart" viewBox="0 0 ${width} ${height + 20}" role="img" aria-label="retention histogram">${values
    .map(
      (v, i) =>
        `<rect class="bar" x="${i * w + 2}" y="${height - (v / max) * height}" width="${w - 4}" height="${(v / max) * height}"><title>${(i / 10).toFixed(1)}–${((i + 1) / 10).toFixed(1)}: ${v}</title></rect><text x="${i * w + w / 2}" y="${height + 14}" text-anchor="middle">${(i / 10).toFixed(1)}</text>`,
    )
    .join("")}</svg>`;
}

// R1: min(1, e^(−λ·days)·(1 + ln(1 + uses))/5), for a few access counts, with the forgetting threshold.
function decayCurve(width = 420, height = 140, days = 60) {
  const x = (d) => (d / days) * width;
  const y = (r) => height - r * height;
  const line = (uses) =>
    Array.from(
      { length: days + 1 },
      (_, d) => `${x(d)},${y(Math.min(1, (Math.exp(-state.lambda * d) * (1 + Math.log(1 + uses))) / 5))}`,
    ).join(" ");
  return `<svg class="chart" viewBox="0 0 ${width} ${height + 20}" role="img" aria-label="decay curve">
    ${[0, 3, 10].map((uses, i) => `<polyline class="curve curve-${i}" fill="none" points="${line(uses)}"><title>${uses} uses</title></polyline>`).join("")}
    <line class="threshold" x1="0" x2="${width}" y1="${y(state.threshold)}" y2="${y(state.threshold)}"></line>
    <text x="4" y="${height + 14}">0 d</text><text x="${width - 30}" y="${height + 14}">${days} d</text></svg>
    <p class="legend">λ = ${state.lambda}, threshold ${state.threshold} (dashed); lines: 0, 3, 10 uses</p>`;
}

async function loadHealth() {
  const health = await api(`/v1/memories/health?${scope()}`);
  state.lambda = health.decay.lambda;
  state.threshold = health.decay.threshold;
  $("#health").innerHTML = `<div class="cards">
    <div class="card"><b>${health.total}</b><span>memories</span></div>
    ${Object.entries(health.by_type)
      .map(([type, n]) => `<div class="card"><b>${n}</b><span>${escapeHtml(type)}</span></div>`)
      .join("")}
    <div class="card"><b>${health.average_retention}</b><span>average retention</span></div>
    <div class="card"><b>${health.low_retention}</b><span>low retention (&lt; 0.3)</span></div>
    <div class="card"><b>${health.forgotten_last_7_days}</b><span>forgotten in 7 days</span></div></div>
    <h3>Top accessed</h3><ol>${health.top_accessed.map((m) => `<li>${escapeHtml(m.content)} <small>(${m.access_count} uses)</small></li>`).join("") || "<li>none yet</li>"}</ol>`;
  $("#histogram").innerHTML = bars(health.retention_histogram);
  $("#curve").innerHTML = decayCurve();
}

// Cost metering: the user's provider calls and tokens over 30 days, and the app's daily budget.
async function loadUsage() {
  const usage = await api(`/v1/usage?${scope()}`);
  const budget =
    usage.budget.daily_tokens === null
      ? "no daily token budget"
      : `app today: ${usage.budget.spent_today} of ${usage.budget.daily_tokens} tokens${usage.budget.reflection_parked ? ' — <b class="failed">reflection parked until tomorrow (UTC)</b>' : ""}`;
  $("#usage").innerHTML = `<div class="cards">
    <div class="card"><b>${usage.totals.calls}</b><span>calls</span></div>
    <div class="card"><b>${usage.totals.input_tokens}</b><span>input tokens</span></div>
    <div class="card"><b>${usage.totals.output_tokens}</b><span>output tokens</span></div></div><p>${budget}</p>
    <table><tr><th>day</th><th>stage</th><th>provider · model</th><th>calls</th><th>tokens in / out</th></tr>${usage.days
      .map(
        (d) =>
          `<tr><td>${d.day}</td><td>${escapeHtml(d.stage)}</td><td>${escapeHtml(d.provider)} · ${escapeHtml(d.model)}</td><td>${d.calls}</td><td>${d.input_tokens} / ${d.output_tokens}</td></tr>`,
      )
      .join("")}</table>`;
}

async function loadRuns() {
  const [{ runs }, { jobs }, status] = await Promise.all([
    api(`/v1/pipeline/runs?${scope()}&limit=20`),
    api(`/v1/pipeline/jobs?${scope()}&limit=20`),
    api(`/v1/pipeline/status?${scope()}`),
  ]);
  // Dead letters: stages that failed too often wait here until someone retries them.
  $("#parked").innerHTML = status.parked.length
    ? `<p class="failed">Parked after repeated failures:</p><ul>${status.parked
        .map(
          (p) =>
            `<li class="parked failed">${escapeHtml(p.stage)}${p.session_id ? ` of session ${escapeHtml(p.session_id.slice(0, 8))}` : ""} · ${p.attempts} failed run(s) · ${escapeHtml(p.error)}</li>`,
        )
        .join("")}</ul><button id="retry">Retry</button>`
    : `<p>${status.settled ? "Settled: the memory reflects the log." : `Working: ${status.backlog.unreplayed_events} to replay, ${status.backlog.unreflected_events} to reflect, ${status.backlog.unembedded_memories} to embed.`}</p>`;
  // Postgres refuses writes when its oldest unfrozen transaction id is ~2^31 old; upkeep freezes long before.
  $("#parked").insertAdjacentHTML(
    "beforeend",
    `<p class="xid-age">Transaction ids since the oldest freeze: ${Number(status.database.oldest_xid_age).toLocaleString()} (writes stop near 2,147,483,648)</p>`,
  );
  $("#retry")?.addEventListener("click", () =>
    api("/v1/pipeline/retry", { method: "POST", body: JSON.stringify({ user_id: state.user, app_id: state.app }) })
      .then(loadRuns)
      .catch(showError),
  );
  $("#jobs").innerHTML = `<table><tr><th>job</th><th>status</th><th>events</th><th>result / error</th></tr>${jobs
    .map(
      (j) =>
        `<tr class="job ${escapeHtml(j.status)}"><td>${escapeHtml(j.job_type)}</td><td>${escapeHtml(j.status)}</td><td>${j.from_seq ?? ""}–${j.to_seq ?? ""}</td><td>${escapeHtml(j.error ?? JSON.stringify(j.result ?? {}))}</td></tr>`,
    )
    .join("")}</table>`;
  $("#runs").innerHTML = runs
    .map(
      (r) =>
        `<details class="run"><summary>${escapeHtml(r.function_id.replace(/^memory-pipeline-/, ""))} · ${escapeHtml(r.status)} · ${r.steps.length} steps</summary><ol>${r.steps
          .map(
            (s) =>
              `<li class="${s.error ? "failed" : ""}">${escapeHtml(s.name)}${s.error ? ` — ${escapeHtml(JSON.stringify(s.error))}` : ""}</li>`,
          )
          .join("")}</ol>${r.error ? `<p class="failed">${escapeHtml(JSON.stringify(r.error))}</p>` : ""}</details>`,
    )
    .join("");
}

async function loadMemories() {
  const { memories } = await api(`/v1/memories?${scope()}&limit=50`);
  $("#memories").innerHTML = memories
    .map(
      (m) =>
        `<li><a href="#" data-id="${m.id}">${escapeHtml(m.content)}</a> <small>${escapeHtml(m.type)}${m.trait ? ` · ${escapeHtml(m.trait.stage)}` : ""} · retention ${m.retention.toFixed(2)}</small></li>`,
    )
    .join("");
  for (const link of document.querySelectorAll("#memories a"))
    link.addEventListener("click", (event) => {
      event.preventDefault();
      showMemory(link.dataset.id);
    });
}

// The entity graph as a picture: the user in the middle, who and what they relate to around them,
// the rest on an outer ring; a dashed line is a relation that no longer holds. A node opens its relations.
async function loadGraph() {
  const { entities } = await api(`/v1/entities?${scope()}&limit=40`);
  if (entities.length === 0) {
    $("#graph").innerHTML = "<p>No people or places named yet.</p>";
    return;
  }
  const shown = entities.slice(0, 25);
  const byId = new Map(shown.map((entity) => [entity.id, entity]));
  const details = await Promise.all(shown.map((entity) => api(`/v1/entities/${entity.id}`)));
  const edges = new Map();
  for (const detail of details)
    for (const relation of detail.relations)
      if (relation.object_id && byId.has(relation.subject_id) && byId.has(relation.object_id)) edges.set(relation.id, relation);
  const self = shown.find((entity) => entity.self);
  const near = new Set();
  for (const edge of edges.values()) {
    if (edge.subject_id === self?.id) near.add(edge.object_id);
    if (edge.object_id === self?.id) near.add(edge.subject_id);
  }
  const width = 560;
  const height = 420;
  const at = new Map();
  const ring = (nodes, radius) =>
    nodes.forEach((entity, i) => {
      const angle = (2 * Math.PI * i) / nodes.length - Math.PI / 2;
      at.set(entity.id, { x: width / 2 + radius * Math.cos(angle), y: height / 2 + radius * Math.sin(angle) });
    });
  if (self) at.set(self.id, { x: width / 2, y: height / 2 });
  ring(
    shown.filter((entity) => near.has(entity.id)),
    110,
  );
  ring(
    shown.filter((entity) => !entity.self && !near.has(entity.id)),
    185,
  );
  const lines = [...edges.values()]
    .map((edge) => {
      const a = at.get(edge.subject_id);
      const b = at.get(edge.object_id);
      return `<line class="edge ${edge.current ? "current" : "past"}" x1="${a.x}" y1="${a.y}" x2="${b.x}" y2="${b.y}"><title>${escapeHtml(edge.content)}</title></line>
        <text class="edge-label" x="${(a.x + b.x) / 2}" y="${(a.y + b.y) / 2 - 3}" text-anchor="middle">${escapeHtml(edge.predicate)}</text>`;
    })
    .join("");
  const nodes = shown
    .map((entity) => {
      const { x, y } = at.get(entity.id);
      return `<g class="node kind-${entity.self ? "self" : escapeHtml(entity.kind)}" data-id="${entity.id}" transform="translate(${x},${y})">
        <circle r="${entity.self ? 14 : 10}"><title>${escapeHtml(entity.kind)}${entity.aliases.length ? ` · also ${escapeHtml(entity.aliases.join(", "))}` : ""}</title></circle>
        <text y="${entity.self ? 28 : 22}" text-anchor="middle">${escapeHtml(entity.name)}</text></g>`;
    })
    .join("");
  $("#graph").innerHTML =
    `<svg class="graph" viewBox="0 0 ${width} ${height}" role="img" aria-label="the user's people and places">${lines}${nodes}</svg>`;
  const detailsById = new Map(details.map((detail) => [detail.entity.id, detail]));
  for (const node of document.querySelectorAll("#graph .node"))
    node.addEventListener("click", () => showEntity(detailsById.get(node.dataset.id)));
}

function showEntity(detail) {
  const relation = (r) =>
    `<li class="${r.current ? "current" : "past"}">${escapeHtml(r.subject)} <b>${escapeHtml(r.predicate)}</b> ${escapeHtml(r.object)}${r.current ? "" : " <small>(no longer)</small>"} <small>· ${r.sources.length} source event(s)</small></li>`;
  $("#entity").innerHTML = `<h3>${escapeHtml(detail.entity.name)} <small>${escapeHtml(detail.entity.kind)}</small></h3>
    <ul class="relations">${detail.relations.map(relation).join("") || "<li>no relations</li>"}</ul>
    <p>${detail.mentions.length} mention(s)</p>`;
}

async function showMemory(id) {
  const [memory, { history }] = await Promise.all([api(`/v1/memories/${id}`), api(`/v1/memories/${id}/history`)]);
  $("#memory").innerHTML = `<h3>${escapeHtml(memory.content)}</h3>
    <h4>History</h4><ol class="history">${history.map((h) => `<li>${escapeHtml(h.operation)} by ${escapeHtml(h.actor)} · ${escapeHtml(h.reason ?? "")}</li>`).join("")}</ol>
    <h4>Sources</h4><ul class="sources">${memory.sources.map((s) => `<li>session ${escapeHtml(s.session_id.slice(0, 8))} · event #${s.seq}</li>`).join("") || "<li>none (added through the API)</li>"}</ul>`;
}

async function inspectContext(event) {
  event.preventDefault();
  const window = await api("/v1/context", {
    method: "POST",
    body: JSON.stringify({
      user_id: state.user,
      app_id: state.app,
      query: $("#query").value,
      max_tokens: Number($("#max-tokens").value),
      explain: true,
    }),
  });
  // The retrieval receipts: why each memory is in the window, and what was left out.
  const receipts = new Map(window.explanation.chosen.map((entry) => [entry.memory_id, entry]));
  const signals = (s) =>
    `<span class="signals">vector ${s.vector_rank ?? "–"} · sim ${s.similarity.toFixed(2)} · BM25 ${s.bm25_rank ?? "–"} · cov ${s.coverage.toFixed(2)} · rrf ${s.fused_score.toFixed(4)}${s.neighbour_boost > 0 ? ` +${s.neighbour_boost.toFixed(4)} beside a hit` : ""} · ${Math.round(s.age_days)} d · imp ${s.importance.toFixed(2)} · ret ${s.retention.toFixed(2)}</span>`;
  const why = (item) => {
    if (!item.memory_id) return "given by the caller";
    const receipt = receipts.get(item.memory_id);
    const origin = `${item.sources.length} source event(s)${item.group ? `, ${escapeHtml(item.group)}` : ""}`;
    return receipt ? `memory, ${origin}: ${escapeHtml(receipt.reason)}<br>${signals(receipt.signals)}` : `memory, ${origin}`;
  };
  const leftOut = window.explanation.left_out;
  $("#inspector").innerHTML =
    `<p class="total">${window.total_tokens} of ${window.max_tokens} tokens (${escapeHtml(window.tokenizer)}), ${window.explanation.considered} memories considered</p>
    <table><tr><th>section</th><th>tokens</th><th>item</th><th>why</th></tr>${window.sections
      .flatMap((s) =>
        s.items.map(
          (item) =>
            `<tr class="item"><td>${escapeHtml(s.kind)}</td><td>${item.tokens}</td><td>${escapeHtml(item.text)}</td><td>${why(item)}</td></tr>`,
        ),
      )
      .join("")}</table>
    <h4>Left out (${leftOut.length})</h4><table class="left-out"><tr><th>because</th><th>memory</th><th>why</th></tr>${leftOut
      .map(
        (entry) =>
          `<tr class="left-out-item"><td>${escapeHtml(entry.left_out_because)}</td><td>${escapeHtml(entry.content)}</td><td>${escapeHtml(entry.reason)}<br>${signals(entry.signals)}</td></tr>`,
      )
      .join("")}</table>`;
}

async function start() {
  $("#user").value = state.user;
  $("#key").value = state.key;
  $("#settings").addEventListener("submit", (event) => {
    event.preventDefault();
    localStorage.setItem("mnemo-key", $("#key").value);
    location.search = `?user_id=${encodeURIComponent($("#user").value)}&app_id=${encodeURIComponent(state.app)}`;
  });
  $("#context-form").addEventListener("submit", (event) => inspectContext(event).catch(showError));
  if (!state.user) return;
  await Promise.all([loadHealth(), loadRuns(), loadMemories(), loadUsage(), loadGraph()]);
  document.body.classList.add("loaded");
}
const showError = (error) => ($("#error").textContent = error.message);
start().catch(showError);
