/**
 * The compile index as its readers need it (compile/indexedGraph.ts: the graph of `audit --for`
 * and `review --queue`): the index, the stamps and the stored summaries, apart from index.ts.
 * In a bundle a lazily loaded folder entry evaluates every module it re-exports that the bundle
 * uses, so a reader of index.ts also evaluated the cached load and the read-ahead it never runs.
 */
export { type CompileIndex, type DirStamp, fromStoredSummary, noFile, readIndex, stampWidth, type StoredSummary } from "./compileIndex"
export { racyMarginMs, statModels } from "./modelStats"
