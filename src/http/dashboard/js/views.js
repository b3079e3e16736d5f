// Views of the estate: overview, runs, models (list, page, lineage). Each returns a DOM node.
"use strict"

const freezeLine = (f) =>
  el("div", { class: "freeze", "data-freeze": f.scope },
    el("strong", {}, `frozen: ${f.principal ?? "both"} on ${f.scope}`),
    ` — ${f.reason || "no reason given"}`,
    el("span", { class: "who" }, ` (by ${f.frozen_by ?? "unrecorded"}, since ${f.since ?? f.frozen_at ?? "-"})`))

const overviewView = async () => {
  const [brief, policy] = await Promise.all([get("/api/v1/brief?since=7d"), get("/api/v1/policy")])
  if (brief.status !== 200) return card("Brief (last 7 days)", el("p", { class: "error" }, `${brief.body.code}: ${brief.body.message}`))
  const b = brief.body
  const a = b.agent_activity
  const freezes = policy.status === 200 ? policy.body.freezes : b.autonomy.active_freezes ?? []
  const pending = b.escalations.pending ?? []
  return el("div", {},
    el("h2", {}, "Overview"),
    freezes.length === 0 ? el("p", { class: "note" }, "No freezes in force.") : el("div", { id: "freezes", "aria-label": "freezes in force" }, freezes.map(freezeLine)),
    el("div", { class: "grid" },
      card("Brief (last 7 days)", table(["signal", "value"], [
        ["policy decisions", a.total ?? "-"],
        ["allowed", a.allow ?? "-"],
        ["review required", a.require_review ?? "-"],
        ["denied", a.deny ?? "-"],
        ["runs", b.runs.availability === "available" ? `${b.runs.total} (${b.runs.failed} failed)` : b.runs.availability],
        ["freezes in force", freezes.length]
      ])),
      card("Review queue",
        pending.length === 0
          ? el("p", { class: "empty" }, "Nothing is waiting for review.")
          : table(["plan", "model", "principal", "reason"], pending.map((p) => [planLink(p.plan_id), p.model ? modelLink(p.model) : "-", p.principal_id ?? p.principal, p.reason]))),
      card("Recent runs",
        (b.runs.runs ?? []).length === 0
          ? el("p", { class: "empty" }, "No runs in the window.")
          : table(["run", "status", "started"], b.runs.runs.slice(0, 8).map((r) => [runLink(r.run_id), badge(r.status), r.started_at])))))
}

const runsView = async () => {
  const out = await getOk("/api/v1/runs?last=100")
  return el("div", {},
    el("h2", {}, "Runs"),
    out.runs.length === 0
      ? el("p", { class: "empty" }, "No runs recorded yet (pcli run).")
      : table(["run", "status", "started", "duration", "built", "failed", "skipped", "unchanged"],
          out.runs.map((r) => [runLink(r.run_id), badge(r.status), r.started_at, duration(r.duration_ms), r.models_built, r.models_failed, r.models_skipped, r.models_unchanged])))
}

const runView = async (id) => {
  const out = await getOk(`/api/v1/runs/${encodeURIComponent(id)}`)
  const r = out.run
  return el("div", {},
    el("p", {}, el("a", { href: "#/runs" }, "← all runs")),
    el("h2", {}, "Run ", shortId(r.run_id)),
    el("dl", { class: "facts" },
      el("dt", {}, "status"), el("dd", {}, badge(r.status)),
      el("dt", {}, "trigger"), el("dd", {}, r.trigger),
      el("dt", {}, "started"), el("dd", {}, r.started_at),
      el("dt", {}, "duration"), el("dd", {}, duration(r.duration_ms))),
    el("h3", {}, "Models"),
    table(["model", "status", "duration", "rows", "attempts", "error"],
      out.models.map((m) => [modelLink(m.model_name), badge(m.status), duration(m.duration_ms), m.rows_affected ?? "-", m.attempts,
        m.error === undefined || m.error === null ? "-" : el("span", { class: "error" }, typeof m.error === "string" ? m.error : m.error.message ?? JSON.stringify(m.error))])))
}

/** The latest run's status of each model (the graph's colours): the newest run that included it. */
const lastStatuses = async () => {
  const runs = await getOk("/api/v1/runs?last=5")
  const status = new Map()
  for (const r of runs.runs) {
    const detail = await getOk(`/api/v1/runs/${encodeURIComponent(r.run_id)}`)
    for (const m of detail.models) if (!status.has(m.model_name)) status.set(m.model_name, m.status)
  }
  return status
}

const modelsView = async (query) => {
  const [out, status] = await Promise.all([getOk("/api/v1/models"), lastStatuses()])
  const term = query.get("q") ?? ""
  const rows = (t) => out.models.filter((m) => m.name.toLowerCase().includes(t.toLowerCase()) || Object.values(m.tags).some((v) => v.toLowerCase().includes(t.toLowerCase())))
  const body = el("div", { id: "model-rows" })
  const fill = (t) => body.replaceChildren(table(["model", "layer", "tags", "contract", "tests", "last run"],
    rows(t).map((m) => [modelLink(m.name), m.layer ?? "-", Object.entries(m.tags).map(([k, v]) => `${k}=${v}`).join(", ") || "-", m.contracted ? `${m.contract_columns} columns` : "none", m.tests, status.has(m.name) ? badge(status.get(m.name)) : "-"])))
  fill(term)
  const search = el("input", { id: "model-search", type: "search", value: term, placeholder: "name or tag", "aria-label": "search models",
    oninput: (event) => {
      fill(event.target.value)
      history.replaceState(null, "", event.target.value === "" ? "#/models" : `#/models?q=${encodeURIComponent(event.target.value)}`)
    } })
  return el("div", {},
    el("h2", {}, `Models (${out.count})`),
    el("form", { class: "filters", role: "search", onsubmit: (e) => e.preventDefault() }, el("label", {}, "Search", search)),
    body,
    el("h3", {}, "Lineage"),
    out.count === 0 ? el("p", { class: "empty" }, "No models.") : lineageGraph(out.models, status, undefined))
}

const verdictRow = async (capability, model) => {
  const r = await get(`/api/v1/policy/check?principal=agent&capability=${capability}&model=${encodeURIComponent(model)}`)
  if (r.status !== 200) return [`agent ${capability}`, el("span", { class: "error" }, r.body.code), r.body.message]
  const rule = r.body.matched_rule
  return [`agent ${capability}`, badge(r.body.effect), rule === null || rule === undefined ? r.body.reason : `rule ${rule.id ?? JSON.stringify(rule)}: ${r.body.reason}`]
}

const modelView = async (name) => {
  const [m, lineage, runs, models, status] = await Promise.all([
    getOk(`/api/v1/models/${encodeURIComponent(name)}`),
    getOk(`/api/v1/lineage/${encodeURIComponent(name)}`),
    getOk(`/api/v1/runs?last=10&model=${encodeURIComponent(name)}`),
    getOk("/api/v1/models"),
    lastStatuses()
  ])
  const verdicts = await Promise.all(["apply", "propose"].map((c) => verdictRow(c, name)))
  const near = new Set([name, ...(lineage.upstream ?? []).map((n) => n.model), ...(lineage.downstream ?? []).map((n) => n.model)])
  const contract = m.contract === null ? el("p", { class: "note" }, "No contract.") : table(["column", "type", "nullable", "required"], m.contract.columns.map((c) => [c.name, c.type, c.nullable ? "yes" : "no", m.contract.required.includes(c.name) ? "yes" : "no"]))
  return el("div", {},
    el("p", {}, el("a", { href: "#/models" }, "← all models")),
    el("h2", {}, m.name),
    el("div", { class: "grid" },
      card("Model", el("dl", { class: "facts" },
        el("dt", {}, "target"), el("dd", {}, m.target),
        el("dt", {}, "strategy"), el("dd", {}, m.strategy),
        el("dt", {}, "layer"), el("dd", {}, text(m.layer)),
        el("dt", {}, "tags"), el("dd", { id: "model-tags" }, Object.entries(m.tags).map(([k, v]) => `${k}=${v}`).join(", ") || "-"),
        el("dt", {}, "depends on"), el("dd", {}, m.depends_on.length === 0 ? "-" : m.depends_on.map((d, i) => [i === 0 ? "" : ", ", modelLink(d)])),
        el("dt", {}, "downstreams"), el("dd", {}, m.downstreams))),
      card("Policy for agents", el("div", { id: "verdicts" }, table(["action", "effect", "why"], verdicts)))),
    card("SQL", el("p", { class: "note" }, m.sql_path), el("pre", { id: "model-sql", tabindex: "0" }, m.sql)),
    el("div", { class: "grid" },
      card("Contract", contract),
      card("Tests", m.tests.length === 0 ? el("p", { class: "note" }, "No tests.") : table(["test"], m.tests.map((t) => [el("code", {}, JSON.stringify(t))])))),
    card("Last runs", runs.runs.length === 0 ? el("p", { class: "empty" }, "Not run yet.") : el("div", { id: "model-runs" }, table(["run", "status", "duration", "rows", "started"],
      runs.runs.map((r) => [runLink(r.run_id), badge(r.model?.status ?? r.status), duration(r.model?.duration_ms), r.model?.rows_affected ?? "-", r.started_at])))),
    card("Lineage (neighbourhood)", lineageGraph(models.models.filter((x) => near.has(x.name)), status, name)))
}
