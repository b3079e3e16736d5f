/**
 * The compile: models loaded (through the compile cache: `load.ts`), their references resolved,
 * ordered and layered (`compile.ts`), and `pcli compile`'s rendering through the compile index
 * (`indexedCompile.ts`). Nothing outside this folder imports its other files.
 */
export * from "./compile"
export { compileListing, compileListingSummaries, layer, loadAndCompile, summariesShape } from "./load"
export { type ModelSummary, summaryOf } from "../models"
export { compileRendered, type Render } from "./indexedCompile"
export { compiledGraph, graphFromIndex } from "./indexedGraph"
export { closureOf } from "./graph"

// The twins and their references, for the property tests and the benches.
export { depths, findCycle, kahnOrder, reachableCountsPlain } from "./graph"
export { depthsIndexed, kahnOrderIndexed, reachableCountsIndexed } from "./graphIndexed"
