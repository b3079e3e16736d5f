import { Data, Either } from "effect"
import type { Atom, Reach, Selection, Term } from "./selector"

/** What a selection is evaluated over: the models, their edges, tags and files. */
export interface SelectableGraph {
  /** Every model, in the order results come back (execution order). */
  readonly names: ReadonlyArray<string>
  readonly upstream: (name: string) => ReadonlyArray<string>
  readonly downstream: (name: string) => ReadonlyArray<string>
  readonly tags: (name: string) => Readonly<Record<string, string>>
  /** The model's files relative to the project root (`models/stg/orders.sql`), forward slashes. */
  readonly files: (name: string) => ReadonlyArray<string>
}

/** A selector names a model (no `*`) the project does not have. */
export class SelectedModelNotFound extends Data.TaggedError("SelectedModelNotFound")<{ readonly model: string }> {
  readonly code = "model-not-found"
  override get message() {
    return `--select names model ${JSON.stringify(this.model)}, which is not in the project (pcli ls lists the models)`
  }
}

const globMatcher = (glob: string) => {
  const source = glob.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\/-]/g, "\\$&")).join(".*")
  const re = new RegExp(`^${source}$`)
  return (name: string) => re.test(name)
}

const trimSlashes = (p: string) => p.replace(/^\.\//, "").replace(/\/+$/, "")

/** True when `file` is `path` or lies under it (a `*` in `path` matches within one name). */
const underPath = (path: string) => {
  const want = trimSlashes(path)
  const exact = globMatcher(want)
  return (file: string) => {
    const parts = file.split("/")
    for (let i = 1; i <= parts.length; i++) if (exact(parts.slice(0, i).join("/"))) return true
    return false
  }
}

const atomMatches = (graph: SelectableGraph, atom: Atom): Either.Either<ReadonlySet<string>, SelectedModelNotFound> => {
  switch (atom._tag) {
    case "Model": {
      if (!atom.glob.includes("*")) {
        return graph.names.includes(atom.glob) ? Either.right(new Set([atom.glob])) : Either.left(new SelectedModelNotFound({ model: atom.glob }))
      }
      const match = globMatcher(atom.glob)
      return Either.right(new Set(graph.names.filter(match)))
    }
    case "Tag":
      return Either.right(new Set(graph.names.filter((n) => Object.hasOwn(graph.tags(n), atom.key) && (atom.value === undefined || graph.tags(n)[atom.key] === atom.value))))
    case "Path": {
      const match = underPath(atom.path)
      return Either.right(new Set(graph.names.filter((n) => graph.files(n).some(match))))
    }
  }
}

/** Every model reachable from `start` along `next` within `reach` steps (breadth first), `start` excluded. */
const reachable = (start: ReadonlySet<string>, next: (name: string) => ReadonlyArray<string>, reach: Reach): ReadonlySet<string> => {
  const seen = new Set<string>(start)
  const found = new Set<string>()
  let frontier = [...start]
  for (let step = 0; frontier.length > 0 && (reach.depth === undefined || step < reach.depth); step++) {
    const following: Array<string> = []
    for (const node of frontier) {
      for (const n of next(node)) {
        if (seen.has(n)) continue
        seen.add(n)
        found.add(n)
        following.push(n)
      }
    }
    frontier = following
  }
  return found
}

const all: Reach = { depth: undefined }

const termModels = (graph: SelectableGraph, term: Term): Either.Either<ReadonlySet<string>, SelectedModelNotFound> =>
  Either.map(atomMatches(graph, term.atom), (base) => {
    const out = new Set(base)
    if (term.at) {
      const down = reachable(base, graph.downstream, all)
      for (const n of down) out.add(n)
      for (const n of reachable(out, graph.upstream, all)) out.add(n)
      return out
    }
    if (term.ancestors !== undefined) for (const n of reachable(base, graph.upstream, term.ancestors)) out.add(n)
    if (term.descendants !== undefined) for (const n of reachable(base, graph.downstream, term.descendants)) out.add(n)
    return out
  })

/** The models a selection picks, in the graph's order. */
export const evaluateSelection = (graph: SelectableGraph, selection: Selection): Either.Either<ReadonlyArray<string>, SelectedModelNotFound> => {
  const picked = new Set<string>()
  for (const group of selection) {
    let inGroup: ReadonlySet<string> | undefined
    for (const term of group) {
      const models = termModels(graph, term)
      if (Either.isLeft(models)) return Either.left(models.left)
      inGroup = inGroup === undefined ? models.right : new Set([...inGroup].filter((n) => models.right.has(n)))
    }
    for (const n of inGroup ?? []) picked.add(n)
  }
  return Either.right(graph.names.filter((n) => picked.has(n)))
}
