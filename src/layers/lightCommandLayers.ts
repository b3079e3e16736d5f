// The layers of the commands that also have a light entry (src/light/), one export each so a light
// bundle keeps only its own; commandLayers.ts lists them with every other command's.
import { Layer } from "effect"
import * as Compiler from "../services/Project/compile"
import { PolicyQueryLayer } from "./PolicyQueryLayer"
import { ConfigLayer, type GlobalOptions, ProjectLayer } from "./ProjectContextLayer"

/** The project alone: the compile index reads files itself (no PipelineCompiler, so none of the run's layers). */
export const compileLayer = (options: GlobalOptions) => ProjectLayer(options, true)
export const policyCheckLayer = PolicyQueryLayer
export const policyShowLayer = PolicyQueryLayer
/** Test reads only the engine, replay the engine, attributes and the ledger's evaluations: the queries' one layer. */
export const policyTestLayer = PolicyQueryLayer
export const policyReplayLayer = PolicyQueryLayer
export const validateLayer = ConfigLayer

/** ls and lineage: the project compiled (through the compile cache), nothing else. */
export const inspectLayer = (options: GlobalOptions) => Compiler.layer.pipe(Layer.provideMerge(ProjectLayer(options, true)))
