// Views of governance: policy, the ledger browser, plans and the review queue, products.
"use strict"

const scopeText = (scope) => {
  if (scope.any) return "any"
  const parts = []
  if (scope.models.length > 0) parts.push(`models ${scope.models.join(", ")}`)
  if (scope.layer !== undefined) parts.push(`layer ${scope.layer}`)
  for (const [k, v] of Object.entries(scope.tags)) parts.push(`tag ${k}=${v}`)
  if (scope.classifications.length > 0) parts.push(`classification ${scope.classifications.join(", ")}`)
  if (scope.exclude_classifications.length > 0) parts.push(`not ${scope.exclude_classifications.join(", ")}`)
  if (scope.contracted !== undefined) parts.push(scope.contracted ? "contracted" : "not contracted")
  if (scope.max_downstreams !== undefined) parts.push(`≤ ${scope.max_downstreams} downstreams`)
  return parts.join("; ") || "-"
}

const policyView = async () => {
  const p = await getOk("/api/v1/policy")
  return el("div", {},
    el("h2", {}, "Policy"),
    p.configured ? "" : el("p", { class: "note" }, "No [policy] block in pcli.toml: nothing is enforced."),
    el("dl", { class: "facts" },
      el("dt", {}, "default agent effect"), el("dd", { id: "default-effect" }, badge(p.default_agent_effect)),
      el("dt", {}, "ledger head"), el("dd", {}, shortId(p.ledger_head_hash))),
    card("Freezes in force", p.freezes.length === 0 ? el("p", { class: "empty" }, "None.") : el("div", { id: "policy-freezes" }, p.freezes.map(freezeLine))),
    card("Rules (file order)", p.rules.length === 0 ? el("p", { class: "empty" }, "No rules: every agent action takes the default effect.") :
      el("div", { id: "rules" }, table(["#", "principal", "capability", "effect", "scope"], p.rules.map((r) => [r.id, r.principal, r.capability, badge(r.effect), scopeText(r.scope)])))))
}

const LEDGER_FILTERS = ["actor", "model", "effect", "since"]
const PAGE = 50

const ledgerLink = (row) => {
  if (row.plan_id === null) return "-"
  if (row.plan_id.startsWith("run-")) return runLink(row.plan_id)
  if (/^[0-9a-f]{64}$/.test(row.plan_id)) return planLink(row.plan_id)
  return shortId(row.plan_id)
}

const ledgerView = async (query) => {
  const params = new URLSearchParams()
  for (const f of LEDGER_FILTERS) if (query.get(f)) params.set(f, query.get(f))
  params.set("limit", String(PAGE))
  if (query.get("cursor")) params.set("cursor", query.get("cursor"))
  const r = await get(`/api/v1/audit?${params}`)
  const go = (changes) => {
    const next = new URLSearchParams()
    for (const f of LEDGER_FILTERS) if (query.get(f)) next.set(f, query.get(f))
    for (const [k, v] of Object.entries(changes)) v === "" || v === undefined ? next.delete(k) : next.set(k, v)
    location.hash = `#/ledger${next.toString() === "" ? "" : `?${next}`}`
  }
  const field = (name, label, control) => el("label", {}, label, control)
  const input = (name) => el("input", { name, value: query.get(name) ?? "", "aria-label": name })
  const effect = el("select", { name: "effect", "aria-label": "effect" }, ["", "allow", "require_review", "deny"].map((v) => el("option", { value: v, selected: (query.get("effect") ?? "") === v }, v === "" ? "any" : v)))
  const form = el("form", { class: "filters", id: "ledger-filters",
    onsubmit: (event) => {
      event.preventDefault()
      const data = new FormData(event.target)
      go(Object.fromEntries(LEDGER_FILTERS.map((f) => [f, String(data.get(f) ?? "")])))
    } },
    field("actor", "actor", input("actor")), field("model", "model", input("model")), field("effect", "effect", effect),
    field("since", "since (7d, 2026-01-01)", input("since")), el("button", { type: "submit" }, "Filter"))
  const verify = el("div", { id: "chain" }, el("button", { type: "button", class: "secondary", onclick: async (event) => {
    event.currentTarget.disabled = true
    const v = await get("/api/v1/audit/verify")
    verify.replaceChildren(v.status !== 200 ? el("p", { class: "error" }, `${v.body.code}: ${v.body.message}`) :
      el("p", {}, v.body.intact ? badge("intact") : badge("failed"), ` ${v.body.rows} rows; ${v.body.intact ? "the chain recomputes" : `broken at seq ${v.body.first_bad?.seq}: ${v.body.first_bad?.reason}`}`))
  } }, "Verify the chain"))
  if (r.status !== 200) return el("div", {}, el("h2", {}, "Ledger"), form, el("p", { class: "error" }, `${r.body.code}: ${r.body.message}`))
  const out = r.body
  const offset = Number(query.get("cursor") ?? "0")
  return el("div", {},
    el("h2", {}, "Ledger"),
    form,
    verify,
    out.entries.length === 0 ? el("p", { class: "empty" }, "No decisions match.") :
      el("div", { id: "ledger-rows" }, table(["time", "kind", "actor", "model", "effect", "rule", "plan / run", "reason"],
        out.entries.map((e) => [e.timestamp, e.kind, `${e.principal}(${e.principal_id ?? "unrecorded"})`, e.model ?? "-", e.effect === null ? "-" : badge(e.effect), e.rule_id ?? "-", ledgerLink(e), e.reason ?? "-"]))),
    el("div", { class: "pager" },
      offset > 0 ? el("button", { type: "button", class: "secondary", onclick: () => go({ cursor: offset - PAGE > 0 ? String(offset - PAGE) : "" }) }, "← newer rows first page") : "",
      el("span", {}, `rows ${out.entries.length === 0 ? 0 : offset + 1}–${offset + out.entries.length}`),
      out.next_cursor ? el("button", { type: "button", id: "next-page", onclick: () => go({ cursor: out.next_cursor }) }, "next page →") : ""))
}

const plansView = async () => {
  const [plans, queue] = await Promise.all([getOk("/api/v1/plans"), getOk("/api/v1/review-queue")])
  return el("div", {},
    el("h2", {}, "Plans"),
    card("Review queue", queue.pending.length === 0 ? el("p", { class: "empty" }, "Nothing is waiting for review.") :
      el("div", { id: "queue" }, table(["plan", "kind", "models", "class", "blast radius", "marker"], queue.pending.map((p) => [planLink(p.plan_id), p.kind, p.models.join(", "), p.change_class, p.blast_radius ?? "?", badge(p.marker)])))),
    card("All plans", plans.plans.length === 0 ? el("p", { class: "empty" }, "No plans in the store.") :
      el("div", { id: "plans" }, table(["plan", "kind", "created", "by", "models", "review"], plans.plans.map((p) => [planLink(p.plan_id), badge(p.kind), p.created_at, `${p.principal.class}(${p.principal.id})`, p.models.join(", "), badge(p.review)])))))
}

const findingText = (f) => [f.kind, f.column, f.from !== undefined || f.to !== undefined ? `${f.from ?? "∅"} → ${f.to ?? "∅"}` : undefined, f.detail].filter((x) => x !== undefined).join(" ")

const planView = async (id) => {
  const [plan, status] = await Promise.all([getOk(`/api/v1/plans/${encodeURIComponent(id)}`), get(`/api/v1/plans/${encodeURIComponent(id)}/status`)])
  const impact = await Promise.all(plan.models.map((m) => get(`/api/v1/lineage/${encodeURIComponent(m)}`)))
  const downstream = [...new Set(impact.flatMap((r) => (r.status === 200 ? (r.body.downstream ?? []).map((n) => n.model) : [])))].filter((m) => !plan.models.includes(m))
  const approve = `pcli review ${plan.plan_id} --approve`
  const s = status.body
  return el("div", {},
    el("p", {}, el("a", { href: "#/plans" }, "← all plans")),
    el("h2", {}, "Plan ", shortId(plan.plan_id)),
    el("dl", { class: "facts" },
      el("dt", {}, "kind"), el("dd", {}, badge(plan.kind)),
      el("dt", {}, "base"), el("dd", {}, text(plan.base_ref)),
      el("dt", {}, "approval"), el("dd", { id: "approval" }, status.status !== 200 ? el("span", { class: "error" }, `${s.code}: ${s.message}`) : s.reviewed ? [badge("approved"), ` by ${s.approver?.principal ?? s.approver?.name ?? "-"} at ${s.reviewed_at}`] : badge("pending")),
      el("dt", {}, "stale"), el("dd", {}, plan.stale ? el("strong", { class: "error" }, "yes: apply will refuse it") : "no")),
    card("Approve (from a terminal; this page never approves)", el("div", { class: "cmd" }, el("code", { id: "approve-command" }, approve), copyButton(approve, "approve command"))),
    card(`Breaking findings (${plan.breaking_changes.length})`, plan.breaking_changes.length === 0 ? el("p", { class: "empty" }, "None.") :
      el("ul", { id: "breaking" }, plan.breaking_changes.map((b) => el("li", {}, `${b.model}: ${findingText(b.finding)}`)))),
    card("Diff", plan.changes.length === 0 ? el("p", { class: "empty" }, "No model changes (a gated plan).") :
      el("div", { id: "diff" }, plan.changes.map((c) => el("div", {}, el("h3", {}, modelLink(c.model), " ", badge(c.change_class)),
        el("ul", {}, c.findings.map((f) => el("li", {}, findingText(f)))))))),
    card("Impact", el("p", {}, `Models: `, plan.models.map((m, i) => [i === 0 ? "" : ", ", modelLink(m)])),
      el("p", { id: "impact" }, downstream.length === 0 ? "No downstream models outside the plan." : [`Downstream (${downstream.length}): `, downstream.map((m, i) => [i === 0 ? "" : ", ", modelLink(m)])])),
    el("p", { class: "note" }, plan.message))
}

const productsView = async () => {
  const out = await getOk("/api/v1/products")
  const integrity = (p) => (p.approval === undefined ? "-" : p.snapshot_intact ? badge("intact") : badge("tampered"))
  return el("div", {},
    el("h2", {}, "Products"),
    out.products.length === 0 ? el("p", { class: "empty" }, "No products yet (products/*.toml).") :
      el("div", { id: "products" }, table(["product", "state", "integrity", "approved by", "output model", "artifact problems"], out.products.map((p) => [
        p.product, p.fulfill_state === undefined ? (p.spec_present ? "spec only" : "-") : badge(p.fulfill_state), integrity(p),
        p.approval ? p.approval.approved_by ?? p.approval.approver : "-", p.output_model ? modelLink(p.output_model) : "-", p.artifact_problems.length === 0 ? "none" : p.artifact_problems.join("; ")]))))
}
