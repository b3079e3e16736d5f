/**
 * The SQL reader: which tables a model's SQL reads. `parseReferences` is the front: the fast
 * reader (`sqlFast.ts`, pure TypeScript) answers what it fully recognises, DuckDB's own parser
 * (`json_serialize_sql`) the rest, errors included. Nothing outside this folder imports its other files.
 */
export { formatTableRef, integerLiteralColumns, parseReferences, serializeBatch, type SerializedStatement, type TableRef } from "./sqlRefs"
export { parseableSql, substituteWindow } from "./placeholders"
export { normalizeType } from "./types"

// The twins and their references: the cached load runs the fast reader first (on the read-ahead
// worker too) and DuckDB after it; the property tests and bench/projectTwins.ts compare them.
export { fastReferencesOf, parseReferencesWithDuckDb, referencesOf } from "./sqlRefs"
export { fastTableReferences } from "./sqlFast"
export { allKeywords } from "./sqlTokens"
export { scanSerializedStatement, skipValue } from "./astScan"
