import { Context } from "effect"

/**
 * Whether a compile may read the compile cache. A governed project's (one with `[policy]`) never
 * does: the cache is a project file an agent can write, and what it holds (SQL text, decoded
 * sidecars) is what would be built and judged (decisions.md 33). Set where the project is resolved.
 */
export class CompileCacheReads extends Context.Reference<CompileCacheReads>()("pcli/CompileCacheReads", {
  defaultValue: () => true
}) {}
