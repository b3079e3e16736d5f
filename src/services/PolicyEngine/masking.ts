// Masking resolution of classification tags: `product verify`'s classification check and `pcli compile`'s W004.
// Type imports alone: the light compile entry bundles this module.
import type { ClassificationsBlock, MaskBlock } from "../../schemas/policy"

/** What masking resolution reads of pcli.toml: its `[mask]` (with `[mask.<env>]`) and `[classifications]` blocks. */
export interface MaskingConfig {
  readonly mask: MaskBlock | undefined
  readonly classifications: ClassificationsBlock | undefined
}

/** A classification tag resolves through `[mask]`, any `[mask.<env>]` table (no env gating) or `allow_unmasked`. */
export const tagResolves = (tag: string, mask: MaskBlock | undefined, classifications: ClassificationsBlock | undefined): boolean => {
  for (const [key, value] of Object.entries(mask ?? {})) {
    if (typeof value === "string" && key === tag) return true
    if (typeof value === "object" && Object.prototype.hasOwnProperty.call(value, tag)) return true
  }
  return (classifications?.allow_unmasked ?? []).includes(tag)
}

/** A W004 finding: one per (model, column, tag) whose tag resolves nowhere. */
export interface MaskingWarning {
  readonly code: "W004"
  readonly model: string
  readonly column: string
  readonly tag: string
  readonly message: string
  readonly suggestion: string
}

/**
 * W004 for `pcli compile`: every classified column whose tag has no masking resolution.
 * `models` is each model with its column → tag map (sidecar `[classification]`, or a spec's).
 */
export const maskingWarnings = (
  models: ReadonlyArray<{ readonly model: string; readonly classification: Readonly<Record<string, string>> }>,
  mask: MaskBlock | undefined,
  classifications: ClassificationsBlock | undefined
): ReadonlyArray<MaskingWarning> =>
  models.flatMap(({ model, classification }) =>
    Object.keys(classification)
      .sort()
      .filter((column) => !tagResolves(classification[column]!, mask, classifications))
      .map((column) => {
        const tag = classification[column]!
        return {
          code: "W004" as const,
          model,
          column,
          tag,
          message: `classification '${tag}' of column '${column}' has no masking resolution`,
          suggestion: `add \`${tag} = "hash"\` (or redact/partial/none) under [mask], or list "${tag}" in [classifications].allow_unmasked`
        }
      })
  )

