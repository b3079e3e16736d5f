import type { TargetBlock } from "../../schemas/model"
import { literalSpans } from "./directReads"

/** An upstream model's target, and the relation a branch build reads it from instead. */
export interface BranchRead {
  readonly view: TargetBlock
  /** The relation as SQL, quoted (`"pcli_physical"."…"`). */
  readonly relation: string
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** `schema.table` as SQL may write it: each part bare or double-quoted, any case, optionally catalog-qualified. */
const referencePattern = (target: TargetBlock) => {
  const part = (p: string) => `(?:"${escapeRegex(p)}"|${escapeRegex(p)})`
  return new RegExp(`(?<![\\w."])(?:${part(target.catalog)}\\s*\\.\\s*)?${part(target.schema)}\\s*\\.\\s*${part(target.table)}(?![\\w"])`, "gi")
}

/**
 * A model's SQL on a branch (decision 37): each reference to an upstream's target reads the branch's
 * relation instead. A reference inside a string literal is data, not a read, and stays as written:
 * the branch's rows must be production's rows once promoted. When the literals cannot be told apart
 * (`$` quoting, an unclosed quote), every reference is rewritten.
 */
export const readBranchTables = (sql: string, reads: ReadonlyArray<BranchRead>): string => {
  let out = sql
  for (const read of reads) {
    const literals = literalSpans(out)
    const inLiteral = (at: number) => literals !== undefined && literals.some(([a, b]) => at >= a && at < b)
    // The pattern has no capturing group: the second argument is the match's offset.
    out = out.replace(referencePattern(read.view), (match: string, at: number) => (inLiteral(at) ? match : read.relation))
  }
  return out
}
