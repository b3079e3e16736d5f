/** The documents of `pcli docs reference`, in print order (kept apart so the command line loads no Schema). */
export const REFERENCE_NAMES = ["pcli-toml", "model", "contract", "product", "policy"] as const
export type ReferenceName = (typeof REFERENCE_NAMES)[number]
