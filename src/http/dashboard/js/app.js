// The router (hash URLs: deep links and the back button work), the token form and live refresh.
"use strict"

const ROUTES = [
  [/^\/$/, "overview", () => overviewView()],
  [/^\/runs$/, "runs", () => runsView()],
  [/^\/runs\/(.+)$/, "runs", (m) => runView(decodeURIComponent(m[1]))],
  [/^\/models$/, "models", (_m, q) => modelsView(q)],
  [/^\/models\/(.+)$/, "models", (m) => modelView(decodeURIComponent(m[1]))],
  [/^\/policy$/, "policy", () => policyView()],
  [/^\/ledger$/, "ledger", (_m, q) => ledgerView(q)],
  [/^\/plans$/, "plans", () => plansView()],
  [/^\/plans\/(.+)$/, "plans", (m) => planView(decodeURIComponent(m[1]))],
  [/^\/products$/, "products", () => productsView()]
]

const main = document.getElementById("main")
let rendering = 0

/** Renders the view the URL names; a newer render (a click, a live change) wins over an older one. */
const render = async (focus) => {
  const turn = ++rendering
  const hash = location.hash.replace(/^#/, "") || "/"
  const [path, search = ""] = hash.split("?")
  const query = new URLSearchParams(search)
  const route = ROUTES.find(([pattern]) => pattern.test(path))
  for (const a of document.querySelectorAll("nav a")) a.toggleAttribute("aria-current", false)
  let node
  try {
    if (route === undefined) node = el("p", { class: "error" }, `No view ${path}.`)
    else {
      const current = document.querySelector(`nav a[data-view="${route[1]}"]`)
      if (current) current.setAttribute("aria-current", "page")
      node = await route[2](route[0].exec(path), query)
    }
    document.getElementById("token-form").hidden = true
  } catch (e) {
    if (e instanceof NeedsToken) {
      document.getElementById("token-form").hidden = false
      document.getElementById("token").focus()
      return
    }
    node = failure(e)
  }
  if (turn !== rendering) return
  // A live refresh keeps what the reader typed and where they were.
  const active = document.activeElement?.id
  const scroll = window.scrollY
  main.replaceChildren(node)
  main.dataset.view = route?.[1] ?? "none"
  main.dataset.rendered = String(turn)
  if (focus) main.focus({ preventScroll: true })
  else {
    if (active && document.getElementById(active)) document.getElementById(active).focus({ preventScroll: true })
    window.scrollTo(0, scroll)
  }
}

window.addEventListener("hashchange", () => render(true))

document.getElementById("token-form").addEventListener("submit", (event) => {
  event.preventDefault()
  pcli.token = document.getElementById("token").value
  render(false)
  startLive()
})

let liveStarted = false
const startLive = () => {
  if (liveStarted) return
  liveStarted = true
  let lastSeq
  live(
    (seq, ready) => {
      document.getElementById("head-seq").textContent = seq === null ? "unavailable" : `seq ${seq}`
      document.body.dataset.headSeq = String(seq)
      // The first `ready` is the page's own load; any later event (a change, a reconnect) re-reads the view.
      if (!ready || lastSeq !== undefined) render(false)
      lastSeq = seq
    },
    (up) => {
      document.getElementById("offline").hidden = up
      document.body.dataset.live = up ? "up" : "down"
    }
  )
}

render(false).then(() => {
  if (document.getElementById("token-form").hidden) startLive()
})
