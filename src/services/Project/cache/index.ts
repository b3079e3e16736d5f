/**
 * The compile cache: per-file work kept by content hash in shard files under
 * `.pcli/compile-cache/` (`compileCache.ts`, `shardFile.ts`), the compile index beside them
 * (`compileIndex.ts`), the load that reads through them (`cachedLoad.ts`), and the read-ahead
 * worker that reads and decodes files for that load (`readAhead.ts`; its bundle's entry is
 * `readAheadWorker.ts`). Nothing outside this folder imports its other files but `indexRead.ts`,
 * the index alone for the readers of the compiled graph.
 */
export { type CachedLoad, definitionsShape, type LoadOptions, type LoadShape, loadShaped, loadWithCache } from "./cachedLoad"
export { CompileCacheReads } from "./cacheReads"
export { CompileCacheWrites } from "./compileCache"
export {
  type CompileIndex,
  type DirStamp,
  fromStoredSummary,
  indexFileFor,
  noFile,
  readIndex,
  stampWidth,
  type StoredSummary,
  type SummaryTexts,
  toStoredSummary,
  writeIndex
} from "./compileIndex"
export { type SidecarSummary } from "./fileWork"
export { type CacheUse, racyMarginMs } from "./loadFiles"
export { statModels } from "./modelStats"
export { spawnReadAhead, type SpawnedReadAhead } from "./readAhead"
export { asciiJson, cacheBuild } from "./shardFile"

// The twins and their references, for the property tests and the benches.
export { emptyBody, putStamp, rememberJson, storedBodyJson, storedBodyJsonPlain } from "./compileCache"
export { contentHash } from "./contentKey"
export { FileKind, fileWork, workIsJson } from "./fileWork"
export { readStamped, startReadAhead, visitOrder } from "./readAhead"
export * as ReadAheadLoop from "./readAheadLoop"
export { asciiOnly } from "./shardFile"
