// `--select`: dbt's node selection over the model graph. Grammar (docs/decisions.md, "Inspection"):
//   selection    := intersection ( WS+ intersection )*      space: union
//   intersection := term ( "," term )*                      comma: intersection
//   term         := "@" atom | [ [N] "+" ] atom [ "+" [N] ]
//   atom         := "tag:" key [ "=" value ] | "path:" path | "model:" glob | glob
import { Data, Either } from "effect"

/** `tag:`, `path:` or a model name (glob with `*`). */
export type Atom =
  | { readonly _tag: "Model"; readonly glob: string }
  | { readonly _tag: "Tag"; readonly key: string; readonly value: string | undefined }
  | { readonly _tag: "Path"; readonly path: string }

/** How far a `+` reaches: undefined is all the way. */
export interface Reach {
  readonly depth: number | undefined
}

export interface Term {
  readonly atom: Atom
  readonly ancestors: Reach | undefined
  readonly descendants: Reach | undefined
  /** `@model`: the model, its descendants, and every ancestor of those. */
  readonly at: boolean
}

/** A union of intersections of terms. */
export type Selection = ReadonlyArray<ReadonlyArray<Term>>

/** `--select` that does not follow the grammar. */
export class InvalidModelSelector extends Data.TaggedError("InvalidModelSelector")<{ readonly selector: string; readonly detail: string }> {
  readonly code = "selector-invalid"
  override get message() {
    return `--select ${JSON.stringify(this.selector)}: ${this.detail} (forms: model, +model, model+, 2+model, model+1, @model, tag:key[=value], path:dir, a,b intersects, spaces unite)`
  }
}

const namePattern = /^[A-Za-z0-9_*.\-/]+$/

const parseAtom = (text: string): Either.Either<Atom, string> => {
  const colon = text.indexOf(":")
  if (colon === -1) return namePattern.test(text) ? Either.right({ _tag: "Model", glob: text }) : Either.left(`${JSON.stringify(text)} is not a model name`)
  const method = text.slice(0, colon)
  const value = text.slice(colon + 1)
  if (value === "") return Either.left(`${method}: needs a value`)
  switch (method) {
    case "tag": {
      const eq = value.indexOf("=")
      const key = eq === -1 ? value : value.slice(0, eq)
      const tagValue = eq === -1 ? undefined : value.slice(eq + 1)
      if (key === "" || tagValue === "") return Either.left(`tag:${value} needs a key and, after =, a value`)
      return Either.right({ _tag: "Tag", key, value: tagValue })
    }
    case "path":
      return Either.right({ _tag: "Path", path: value })
    case "model":
      return namePattern.test(value) ? Either.right({ _tag: "Model", glob: value }) : Either.left(`${JSON.stringify(value)} is not a model name`)
    default:
      return Either.left(`unknown method ${JSON.stringify(method)} (tag, path, model)`)
  }
}

const reachOf = (digits: string): Reach => ({ depth: digits === "" ? undefined : Number(digits) })

const termPattern = /^(@)?(?:(\d*)\+)?(.*?)(?:\+(\d*))?$/

const parseTerm = (text: string): Either.Either<Term, string> => {
  const m = termPattern.exec(text)
  if (m === null) return Either.left(`${JSON.stringify(text)} is not a selector`)
  const [, at, before, core = "", after] = m
  if (core === "" || core.includes("+") || core.startsWith("@")) return Either.left(`${JSON.stringify(text)} is not a selector`)
  if (at !== undefined && (before !== undefined || after !== undefined)) return Either.left(`${JSON.stringify(text)}: @ does not combine with +`)
  return Either.map(parseAtom(core), (atom) => ({
    atom,
    ancestors: before === undefined ? undefined : reachOf(before),
    descendants: after === undefined ? undefined : reachOf(after),
    at: at !== undefined
  }))
}

/** The selection a `--select` value (or several, united) describes. */
export const parseSelection = (values: ReadonlyArray<string>): Either.Either<Selection, InvalidModelSelector> => {
  const out: Array<ReadonlyArray<Term>> = []
  for (const value of values) {
    const groups = value.trim().split(/\s+/).filter((g) => g !== "")
    if (groups.length === 0) return Either.left(new InvalidModelSelector({ selector: value, detail: "is empty" }))
    for (const group of groups) {
      const terms: Array<Term> = []
      for (const part of group.split(",")) {
        const term = parseTerm(part)
        if (Either.isLeft(term)) return Either.left(new InvalidModelSelector({ selector: value, detail: term.left }))
        terms.push(term.right)
      }
      out.push(terms)
    }
  }
  return Either.right(out)
}

const atomText = (atom: Atom) =>
  atom._tag === "Model" ? atom.glob : atom._tag === "Tag" ? `tag:${atom.key}${atom.value === undefined ? "" : `=${atom.value}`}` : `path:${atom.path}`

/** A selection written back in the grammar (parseSelection's inverse). */
export const formatSelection = (selection: Selection): string =>
  selection
    .map((terms) =>
      terms
        .map((t) => {
          if (t.at) return `@${atomText(t.atom)}`
          const before = t.ancestors === undefined ? "" : `${t.ancestors.depth ?? ""}+`
          const after = t.descendants === undefined ? "" : `+${t.descendants.depth ?? ""}`
          return `${before}${atomText(t.atom)}${after}`
        })
        .join(",")
    )
    .join(" ")
