// The lineage graph: dagre (bundled from its package) lays it out; this draws SVG with pan and zoom.
"use strict"
const SVG = "http://www.w3.org/2000/svg"
const STATUS_FILL = { success: "#bfe6c8", failed: "#f7b9b5", skipped: "#fde3a7", unchanged: "#c9dbf2" }

const svgEl = (tag, attrs, ...children) => {
  const node = document.createElementNS(SVG, tag)
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v))
  for (const c of children) node.append(c)
  return node
}

const legend = () =>
  el("div", { class: "legend", "aria-label": "node colours: last run status" },
    ...[...Object.entries(STATUS_FILL), ["not run", "#ffffff"]].map(([name, fill]) =>
      el("span", {}, el("span", { class: "swatch", style: `background:${fill}` }), ` ${name}`)))

/**
 * `models`: [{ name, depends_on }]; `status`: name → last run status; `focus`: a name drawn highlighted.
 * Nodes are links (keyboard: Tab, Enter); the buttons and +/-/0 keys zoom; dragging pans.
 */
const lineageGraph = (models, status, focus) => {
  const g = new dagre.graphlib.Graph()
  g.setGraph({ rankdir: "LR", nodesep: 18, ranksep: 48, marginx: 12, marginy: 12 })
  g.setDefaultEdgeLabel(() => ({}))
  const names = new Set(models.map((m) => m.name))
  for (const m of models) g.setNode(m.name, { width: Math.max(80, m.name.length * 7.2 + 20), height: 30 })
  for (const m of models) for (const up of m.depends_on) if (names.has(up)) g.setEdge(up, m.name)
  dagre.layout(g)
  const { width = 100, height = 60 } = g.graph()

  const view = svgEl("g", {})
  for (const e of g.edges()) {
    const pts = g.edge(e).points
    view.append(svgEl("path", { class: "edge", d: `M${pts.map((p) => `${p.x},${p.y}`).join("L")}`, "marker-end": "url(#arrow)" }))
  }
  for (const name of g.nodes()) {
    const n = g.node(name)
    const fill = STATUS_FILL[status.get(name)] ?? "#ffffff"
    const link = svgEl("a", { href: `#/models/${encodeURIComponent(name)}`, class: `node${name === focus ? " focus" : ""}`, "data-model": name, "data-status": status.get(name) ?? "none" },
      svgEl("title", {}, `${name}: ${status.get(name) ?? "not run"}`),
      svgEl("rect", { x: n.x - n.width / 2, y: n.y - n.height / 2, width: n.width, height: n.height, rx: 5, fill }),
      svgEl("text", { x: n.x, y: n.y + 4, "text-anchor": "middle" }, name))
    view.append(link)
  }
  const svg = svgEl("svg", { role: "img", "aria-label": `lineage graph of ${g.nodeCount()} models` },
    svgEl("defs", {}, svgEl("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto" }, svgEl("path", { d: "M0,0L10,5L0,10z", fill: "#8b95a1" }))),
    view)

  // Pan and zoom as one transform: fit the whole graph first.
  let scale = 1
  let tx = 0
  let ty = 0
  const apply = () => view.setAttribute("transform", `translate(${tx},${ty}) scale(${scale})`)
  const fit = () => {
    const box = svg.getBoundingClientRect()
    const w = box.width || 600
    const h = box.height || 380
    scale = Math.min(1.5, Math.min(w / width, h / height))
    tx = (w - width * scale) / 2
    ty = (h - height * scale) / 2
    apply()
  }
  const zoom = (factor, cx, cy) => {
    const next = Math.min(4, Math.max(0.1, scale * factor))
    tx = cx - ((cx - tx) * next) / scale
    ty = cy - ((cy - ty) * next) / scale
    scale = next
    apply()
  }
  const centre = () => {
    const box = svg.getBoundingClientRect()
    return [box.width / 2, box.height / 2]
  }
  svg.addEventListener("wheel", (event) => {
    event.preventDefault()
    const box = svg.getBoundingClientRect()
    zoom(event.deltaY < 0 ? 1.15 : 1 / 1.15, event.clientX - box.left, event.clientY - box.top)
  }, { passive: false })
  let drag = null
  svg.addEventListener("pointerdown", (event) => {
    if (event.target.closest("a")) return
    drag = { x: event.clientX - tx, y: event.clientY - ty }
    svg.setPointerCapture(event.pointerId)
  })
  svg.addEventListener("pointermove", (event) => {
    if (drag === null) return
    tx = event.clientX - drag.x
    ty = event.clientY - drag.y
    apply()
  })
  svg.addEventListener("pointerup", () => (drag = null))
  const button = (label, title, act) => el("button", { type: "button", class: "secondary", "aria-label": title, title, onclick: act }, label)
  const box = el("div", { class: "graph", "data-scale": "1" },
    el("div", { class: "controls" },
      button("+", "zoom in", () => zoom(1.25, ...centre())),
      button("−", "zoom out", () => zoom(0.8, ...centre())),
      button("fit", "fit the graph", fit)),
    svg)
  box.addEventListener("keydown", (event) => {
    if (event.key === "+" || event.key === "=") zoom(1.25, ...centre())
    else if (event.key === "-") zoom(0.8, ...centre())
    else if (event.key === "0") fit()
  })
  // Fitted once the box is in the document and has a size.
  requestAnimationFrame(fit)
  return el("div", {}, legend(), box)
}
