// The import walker behind imports.test.ts: pure functions over a map of file → source, so a test can
// hand it a tiny in-memory tree with a deliberately bad import and see it fail.
import { posix } from "node:path"

/** One relative import: the file it is in, what it says, and the file (without extension) it resolves to. */
export interface Edge {
  readonly from: string
  readonly specifier: string
  readonly to: string
}

// `import … from "x"`, `export … from "x"`, `import "x"`, and `import("x")`; the file is scanned as text.
const staticImport = /(?:^|[;\n}])\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?["']([^"']+)["']/g
const dynamicImport = /\bimport\(\s*["']([^"']+)["']\s*\)/g

/** Relative specifiers a source imports, statically or dynamically, in order of appearance. */
export const specifiersOf = (source: string): ReadonlyArray<string> => {
  const found: Array<[number, string]> = []
  for (const m of source.matchAll(staticImport)) found.push([m.index ?? 0, m[1]!])
  for (const m of source.matchAll(dynamicImport)) found.push([m.index ?? 0, m[1]!])
  return found.sort((a, b) => a[0] - b[0]).map(([, s]) => s).filter((s) => s.startsWith("."))
}

/** Every relative import of every file, resolved against the importing file (paths are posix, relative to the repo). */
export const edgesOf = (files: ReadonlyMap<string, string>): ReadonlyArray<Edge> =>
  [...files].flatMap(([from, source]) =>
    specifiersOf(source).map((specifier) => ({ from, specifier, to: posix.normalize(posix.join(posix.dirname(from), specifier)).replace(/\.(ts|js)$/, "") }))
  )

const under = (dir: string) => (file: string) => file === dir || file.startsWith(`${dir}/`)
const isSurface = (file: string) => ["src/cli", "src/http", "src/mcp", "src/light"].some((d) => under(d)(file))
const isServices = under("src/services")
const isLayers = under("src/layers")
const isSchemas = under("src/schemas")

/** The rules on which room may import which, as "file imports specifier: why" lines. */
export const layeringViolations = (edges: ReadonlyArray<Edge>): ReadonlyArray<string> =>
  edges.flatMap((e) => {
    const why =
      isSurface(e.from) && isServices(e.to)
        ? "a surface reaches past the commands into src/services"
        : isServices(e.from) && isLayers(e.to)
          ? "a service imports the wiring in src/layers"
          : isSchemas(e.from) && isServices(e.to)
            ? "a schema imports src/services"
            : undefined
    return why === undefined ? [] : [`${e.from} imports "${e.specifier}": ${why}`]
  })

/** The service folder a file is in (first segment under src/services/), if any. */
export const serviceFolder = (file: string): string | undefined => {
  const m = /^src\/services\/([^/]+)\//.exec(file)
  return m?.[1]
}

/** The folder graph: folder → the other folders it imports, each with one file-level edge as its witness. */
export const folderGraph = (edges: ReadonlyArray<Edge>): ReadonlyMap<string, ReadonlyMap<string, Edge>> => {
  const graph = new Map<string, Map<string, Edge>>()
  for (const e of edges) {
    const a = serviceFolder(e.from)
    const b = serviceFolder(e.to)
    if (a === undefined || b === undefined || a === b) continue
    const out = graph.get(a) ?? new Map<string, Edge>()
    if (!out.has(b)) out.set(b, e)
    graph.set(a, out)
  }
  return graph
}

/** Each cycle between folders, once: the strongly connected components with more than one folder (Tarjan). */
export const folderCycles = (graph: ReadonlyMap<string, ReadonlyMap<string, Edge>>): ReadonlyArray<ReadonlyArray<string>> => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const components: Array<Array<string>> = []
  const visit = (v: string) => {
    index.set(v, index.size)
    low.set(v, index.get(v)!)
    stack.push(v)
    onStack.add(v)
    for (const w of (graph.get(v) ?? new Map()).keys()) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const component: Array<string> = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1) components.push(component.sort())
    }
  }
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v)
  return components
}

/** A cycle as a readable line, naming the file-level imports that close it. */
export const describeCycle = (graph: ReadonlyMap<string, ReadonlyMap<string, Edge>>, cycle: ReadonlyArray<string>): string => {
  const members = new Set(cycle)
  const witnesses = cycle.flatMap((a) =>
    [...(graph.get(a) ?? new Map<string, Edge>())].filter(([b]) => members.has(b)).map(([b, e]) => `  ${a} → ${b}: ${e.from} imports "${e.specifier}"`)
  )
  return `services folders in a cycle: ${cycle.join(", ")}\n${witnesses.join("\n")}`
}
