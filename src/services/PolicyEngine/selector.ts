import { Data } from "effect"
import { globMatcher } from "./glob"

/** A parsed freeze selector: `any | layer=<n> | model=<glob> | classification=<v> | tag=<k>[=<v>]`. */
export type Selector =
  | { readonly kind: "any" }
  | { readonly kind: "layer"; readonly value: string }
  | { readonly kind: "model"; readonly glob: string }
  | { readonly kind: "classification"; readonly value: string }
  | { readonly kind: "tag"; readonly key: string; readonly value?: string }

export const SELECTOR_FORMS = "any | layer=<name> | model=<glob> | classification=<value> | tag=<key>[=<value>]"

export class InvalidSelector extends Data.TaggedError("InvalidSelector")<{ readonly selector: string }> {
  readonly code = "invalid-selector"
  override get message() {
    return `invalid scope selector '${this.selector}': expected one of ${SELECTOR_FORMS}`
  }
}

/** Parses a selector; `undefined` when it is not one of the five forms. */
export const parseSelectorOption = (text: string): Selector | undefined => {
  if (text === "" || text === "any") return { kind: "any" }
  const eq = text.indexOf("=")
  if (eq === -1) return undefined
  const head = text.slice(0, eq)
  const rest = text.slice(eq + 1)
  if (rest === "") return undefined
  switch (head) {
    case "layer":
      return { kind: "layer", value: rest }
    case "model":
      return { kind: "model", glob: rest }
    case "classification":
      return { kind: "classification", value: rest }
    case "tag": {
      const inner = rest.indexOf("=")
      if (inner === -1) return { kind: "tag", key: rest }
      const key = rest.slice(0, inner)
      return key === "" ? undefined : { kind: "tag", key, value: rest.slice(inner + 1) }
    }
    default:
      return undefined
  }
}

export const parseSelector = (text: string): Selector | InvalidSelector =>
  parseSelectorOption(text) ?? new InvalidSelector({ selector: text })

/** The attributes a selector reads. */
export interface SelectorSubject {
  readonly name: string
  readonly tags: Readonly<Record<string, string>>
  readonly classifications: ReadonlySet<string>
  readonly layer?: string | undefined
}

export const selectorMatches = (selector: Selector, subject: SelectorSubject): boolean => {
  switch (selector.kind) {
    case "any":
      return true
    case "layer":
      return subject.layer === selector.value
    case "model":
      return globMatcher(selector.glob)(subject.name)
    case "classification":
      return subject.classifications.has(selector.value)
    case "tag": {
      const actual = Object.prototype.hasOwnProperty.call(subject.tags, selector.key) ? subject.tags[selector.key] : undefined
      return actual !== undefined && (selector.value === undefined || actual === selector.value)
    }
  }
}

/** Match-time reading of a stored scope string: an unrecognised selector matches nothing. */
export const scopeStringMatches = (scope: string, subject: SelectorSubject): boolean => {
  const selector = parseSelectorOption(scope)
  return selector !== undefined && selectorMatches(selector, subject)
}
