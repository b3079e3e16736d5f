// The dashboard's shared helpers: DOM building, reading the JSON routes, ids, the live event stream.
// Plain scripts sharing one scope (no modules): they are bundled as text and served as they are.
"use strict"
const pcli = { token: null }

const el = (tag, attrs, ...children) => {
  const node = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue
    if (k === "class") node.className = v
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v)
    else node.setAttribute(k, v === true ? "" : String(v))
  }
  for (const c of children.flat(Infinity)) if (c !== undefined && c !== null && c !== false) node.append(c instanceof Node ? c : String(c))
  return node
}

const text = (value) => (value === null || value === undefined || value === "" ? "-" : String(value))

class NeedsToken extends Error {}

/** GET a route; resolves { status, body }. A 401 asks for the token. */
const get = async (path) => {
  const headers = pcli.token === null ? {} : { Authorization: `Bearer ${pcli.token}` }
  const res = await fetch(path, { headers })
  if (res.status === 401) throw new NeedsToken()
  return { status: res.status, body: await res.json() }
}

/** The body of a 200, or a thrown error carrying the route's {code, message}. */
const getOk = async (path) => {
  const r = await get(path)
  if (r.status !== 200) throw Object.assign(new Error(`${r.body.code}: ${r.body.message}`), { code: r.body.code })
  return r.body
}

const failure = (e) => el("p", { class: "error" }, e.message)

const copyButton = (value, label) =>
  el("button", {
    type: "button",
    class: "copy",
    "aria-label": `copy ${label ?? value}`,
    title: "copy",
    onclick: async (event) => {
      const button = event.currentTarget
      try {
        await navigator.clipboard.writeText(value)
        button.textContent = "copied"
      } catch {
        // No clipboard (an insecure origin): select the text so Ctrl+C copies it.
        const range = document.createRange()
        range.selectNodeContents(button.previousSibling)
        getSelection().removeAllRanges()
        getSelection().addRange(range)
        button.textContent = "selected"
      }
    }
  }, "copy")

/** A long id shortened: the full value on hover (title) and on copy. */
const shortId = (value, href) => {
  if (value === null || value === undefined) return "-"
  const full = String(value)
  const short = full.length > 16 ? `${full.slice(0, 8)}…${full.slice(-6)}` : full
  const label = href ? el("a", { href, class: "id", title: full }, short) : el("span", { class: "id", title: full }, short)
  return el("span", { class: "idwrap" }, label, copyButton(full, full))
}

const badge = (value) => el("span", { class: `status s-${String(value).replace(/[^a-z_]/g, "")}` }, text(value))

/** A table in a horizontally scrolling box: a wide table never widens the page. */
const table = (headers, rows) =>
  el("div", { class: "scroll" },
    el("table", {},
      el("thead", {}, el("tr", {}, headers.map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, rows.map((r) => el("tr", {}, r.map((c) => el("td", {}, c instanceof Node ? c : text(c))))))
    ))

const card = (title, ...body) => el("section", {}, el("h2", {}, title), ...body)

const duration = (ms) => (ms === null || ms === undefined ? "-" : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`)

const modelLink = (name) => el("a", { href: `#/models/${encodeURIComponent(name)}` }, name)
const planLink = (id) => shortId(id, `#/plans/${encodeURIComponent(id)}`)
const runLink = (id) => shortId(id, `#/runs/${encodeURIComponent(id)}`)

/**
 * The live stream (/api/v1/events), read with fetch so a token can be sent. `onChange(seq)` on each
 * event; `onState(up)` when the server goes away or comes back. Reconnects every second.
 */
const live = (onChange, onState) => {
  const connect = async () => {
    try {
      const headers = pcli.token === null ? {} : { Authorization: `Bearer ${pcli.token}` }
      const res = await fetch("/api/v1/events", { headers })
      if (!res.ok || res.body === null) throw new Error(`events: ${res.status}`)
      onState(true)
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
      let buffered = ""
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        buffered += value
        let end
        while ((end = buffered.indexOf("\n\n")) !== -1) {
          const frame = buffered.slice(0, end)
          buffered = buffered.slice(end + 2)
          const data = frame.split("\n").find((l) => l.startsWith("data: "))
          if (data !== undefined) onChange(JSON.parse(data.slice(6)).head_seq, frame.startsWith("event: ready"))
        }
      }
    } catch {
      // Fall through: the server is unreachable or closed the stream.
    }
    onState(false)
    setTimeout(connect, 1000)
  }
  connect()
}
