/**
 * Column lineage from DuckDB's parsed SQL: per query (`analyze.ts`, scopes in `scope.ts`) and over
 * the compiled project (`project.ts`). Nothing outside this folder imports its other files.
 */
export { analyzeQuery, type QueryLineage, type TableResolver } from "./analyze"
export { type ColumnSource, type NamedColumn, type Origin } from "./scope"
export { type ExtraColumns, projectColumns, type ProjectColumns } from "./project"
export { directReaders, traceDownstream, traceUpstream } from "./trace"
