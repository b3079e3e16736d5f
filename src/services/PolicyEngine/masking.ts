import { createHash } from "node:crypto"
import type { ClassificationsBlock, MaskBlock, MaskStrategy } from "../../schemas/policy"

/** How a classification tag resolves for one environment (W004 when it does not). */
export type TagResolution =
  | { readonly tag: string; readonly resolved: true; readonly via: "env_override"; readonly env: string; readonly strategy: MaskStrategy }
  | { readonly tag: string; readonly resolved: true; readonly via: "default"; readonly strategy: MaskStrategy }
  | { readonly tag: string; readonly resolved: true; readonly via: "allow_unmasked" }
  | { readonly tag: string; readonly resolved: false; readonly warning: "W004" }

/** Scalar `[mask]` entries: tag → default strategy. */
export const maskDefaults = (mask: MaskBlock | undefined): Readonly<Record<string, MaskStrategy>> => {
  const out: Record<string, MaskStrategy> = {}
  for (const [key, value] of Object.entries(mask ?? {})) if (typeof value === "string") out[key] = value
  return out
}

/** `[mask.<env>]` overrides for one environment. */
export const maskOverrides = (mask: MaskBlock | undefined, env: string): Readonly<Record<string, MaskStrategy>> => {
  const table = mask === undefined || !Object.prototype.hasOwnProperty.call(mask, env) ? undefined : mask[env]
  return typeof table === "object" ? table : {}
}

/** Strategies in force for `env`: defaults overlaid with `[mask.<env>]`. */
export const resolvedStrategies = (mask: MaskBlock | undefined, env: string): Readonly<Record<string, MaskStrategy>> => ({
  ...maskDefaults(mask),
  ...maskOverrides(mask, env)
})

/** Resolution order: env override, then default, then `allow_unmasked`, else W004. */
export const resolveClassificationTag = (
  tag: string,
  env: string,
  mask: MaskBlock | undefined,
  classifications: ClassificationsBlock | undefined
): TagResolution => {
  const override = maskOverrides(mask, env)
  if (Object.prototype.hasOwnProperty.call(override, tag)) return { tag, resolved: true, via: "env_override", env, strategy: override[tag]! }
  const defaults = maskDefaults(mask)
  if (Object.prototype.hasOwnProperty.call(defaults, tag)) return { tag, resolved: true, via: "default", strategy: defaults[tag]! }
  if ((classifications?.allow_unmasked ?? []).includes(tag)) return { tag, resolved: true, via: "allow_unmasked" }
  return { tag, resolved: false, warning: "W004" }
}

/** Applies a strategy to one value: hash = SHA-256 hex, redact = `***`, partial keeps 2+2 characters. */
export const applyMask = (strategy: MaskStrategy, value: string): string => {
  switch (strategy) {
    case "hash":
      return createHash("sha256").update(value, "utf8").digest("hex")
    case "redact":
      return "***"
    case "partial": {
      const chars = [...value]
      return chars.length < 5 ? "***" : `${chars.slice(0, 2).join("")}***${chars.slice(-2).join("")}`
    }
    case "none":
      return value
  }
}
