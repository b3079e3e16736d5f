// The pcli dashboard: reads the same JSON routes as any client; the token lives in this variable only.
"use strict"
let token = null

const el = (tag, text, cls) => {
  const node = document.createElement(tag)
  if (text !== undefined) node.textContent = String(text)
  if (cls) node.className = cls
  return node
}

const table = (headers, rows) => {
  const t = el("table")
  const head = el("tr")
  for (const h of headers) head.appendChild(el("th", h))
  t.appendChild(head)
  for (const r of rows) {
    const tr = el("tr")
    for (const c of r) tr.appendChild(el("td", c === null || c === undefined ? "-" : c))
    t.appendChild(tr)
  }
  return t
}

const fill = (id, ...nodes) => {
  const body = document.querySelector(`#${id} .body`)
  body.replaceChildren(...nodes)
}

class NeedsToken extends Error {}

const get = async (path) => {
  const headers = token === null ? {} : { Authorization: `Bearer ${token}` }
  const res = await fetch(path, { headers })
  if (res.status === 401) throw new NeedsToken()
  const body = await res.json()
  return { status: res.status, body }
}

const failed = (r) => el("p", r.body.code === "not_implemented" ? "Not available on this server yet." : `${r.body.code}: ${r.body.message}`, r.body.code === "not_implemented" ? "note" : "error")

const showBrief = (r) => {
  if (r.status !== 200) {
    fill("brief", failed(r))
    fill("queue", failed(r))
    return
  }
  const b = r.body
  const a = b.agent_activity
  fill(
    "brief",
    table(["signal", "value"], [
      ["decisions", a.total],
      ["allowed", a.allow],
      ["review required", a.require_review],
      ["denied", a.deny],
      ["runs", `${b.runs.total} (${b.runs.failed} failed)`],
      ["freezes in force", b.autonomy.active_freezes.length]
    ])
  )
  const pending = b.escalations.pending
  fill(
    "queue",
    pending.length === 0
      ? el("p", "Nothing is waiting for review.", "empty")
      : table(["plan", "escalated", "principal", "model", "reason"], pending.map((p) => [p.plan_id, p.escalated_at, p.principal_id ?? p.principal, p.model, p.reason]))
  )
}

const showProducts = (r) => {
  if (r.status !== 200) return fill("products", failed(r))
  const ps = r.body.products
  fill(
    "products",
    ps.length === 0
      ? el("p", "No products yet (products/*.toml).", "empty")
      : table(["product", "state", "approved", "output model"], ps.map((p) => [p.product, p.fulfill_state ?? (p.spec_present ? "spec only" : "-"), p.approval ? p.approval.approver : "no", p.output_model]))
  )
}

const showScorecard = (r) => {
  if (r.status !== 200) return fill("scorecard", failed(r))
  const gs = r.body.groups
  fill(
    "scorecard",
    gs.length === 0
      ? el("p", "No policy evaluations recorded yet.", "empty")
      : table(["principal", "evaluations", "allowed", "denied", "escalated", "acceptance"], gs.map((g) => [g.key, g.evaluations, g.allowed, g.denied, g.escalated, `${Math.round(g.acceptance_rate * 1000) / 10}%`]))
  )
}

const showHead = (r) => {
  document.getElementById("head-hash").textContent = r.status === 200 && r.body.ledger_head_hash ? r.body.ledger_head_hash : "unavailable"
}

const load = async () => {
  try {
    const [policy, brief, products, scorecard] = await Promise.all(
      ["/api/v1/policy", "/api/v1/brief?since=7d", "/api/v1/products", "/api/v1/audit/scorecard?by=principal&window=all"].map(get)
    )
    document.getElementById("token-form").hidden = true
    showHead(policy)
    showBrief(brief)
    showProducts(products)
    showScorecard(scorecard)
  } catch (e) {
    if (e instanceof NeedsToken) {
      document.getElementById("token-form").hidden = false
      document.getElementById("token").focus()
      return
    }
    for (const id of ["brief", "queue", "products", "scorecard"]) fill(id, el("p", `Could not reach the server: ${e.message}`, "error"))
  }
}

document.getElementById("token-form").addEventListener("submit", (event) => {
  event.preventDefault()
  token = document.getElementById("token").value
  load()
})

load()
