import type { ArtifactRow } from "../Runner/RunStore"
import type { TombstoneRow } from "./ledger"

/** How `pcli restore <target>` names an evicted artifact: model, model@recipe-prefix, or ≥8 hex of the hash. */
export const matchesTarget = (target: string, t: { readonly model_name: string; readonly blake3_hash: string; readonly recipe_hash?: string | null }): boolean => {
  const at = target.indexOf("@")
  if (at >= 0) {
    const model = target.slice(0, at)
    const prefix = target.slice(at + 1)
    return prefix !== "" && t.model_name === model && typeof t.recipe_hash === "string" && t.recipe_hash.startsWith(prefix)
  }
  return t.model_name === target || (/^[0-9a-fA-F]{8,}$/.test(target) && t.blake3_hash.startsWith(target.toLowerCase()))
}

export type Resolution =
  | { readonly _tag: "One"; readonly tombstone: TombstoneRow }
  | { readonly _tag: "Ambiguous"; readonly candidates: ReadonlyArray<TombstoneRow> }
  | { readonly _tag: "AlreadyRestored"; readonly candidates: ReadonlyArray<TombstoneRow> }
  | { readonly _tag: "Live"; readonly artifact: ArtifactRow }
  | { readonly _tag: "Unknown" }

/** Unrestored tombstones first; a zero match is explained most-specific-first. */
export const resolveTarget = (target: string, tombstones: ReadonlyArray<TombstoneRow>, live: ReadonlyArray<ArtifactRow>): Resolution => {
  const open = tombstones.filter((t) => t.restored_at === null && matchesTarget(target, t))
  if (open.length === 1) return { _tag: "One", tombstone: open[0]! }
  if (open.length > 1) return { _tag: "Ambiguous", candidates: open }
  const restored = tombstones.filter((t) => t.restored_at !== null && matchesTarget(target, t))
  if (restored.length > 0) return { _tag: "AlreadyRestored", candidates: restored }
  const artifact = live.find((a) => matchesTarget(target.includes("@") ? target.slice(0, target.indexOf("@")) : target, a))
  return artifact === undefined ? { _tag: "Unknown" } : { _tag: "Live", artifact }
}
