// Loaded only when a branch command runs.
import { Effect } from "effect"
import { branchCreate, branchDiff, branchDrop, branchList } from "../commands/branch"
import * as commandLayer from "../layers/commandLayers"
import { branchDiffText, branchListText, branchText } from "../render/text/environment"
import { BranchDiffOutput, BranchListOutput, BranchOutput } from "../schemas/environment"
import { type CommonOptions, globalOptions } from "./options"
import { emit } from "./output"

const layerOf = (opts: CommonOptions) => commandLayer.run(globalOptions(opts), undefined)

export const runCreate = (opts: CommonOptions & { readonly name: string; readonly from: string }) =>
  Effect.flatMap(branchCreate({ name: opts.name, from: opts.from }), (out) => emit(opts.output, BranchOutput, out, branchText)).pipe(Effect.provide(layerOf(opts)))

export const runList = (opts: CommonOptions) =>
  Effect.flatMap(branchList, (out) => emit(opts.output, BranchListOutput, out, branchListText)).pipe(Effect.provide(layerOf(opts)))

export const runDrop = (opts: CommonOptions & { readonly name: string }) =>
  Effect.flatMap(branchDrop(opts.name), (out) => emit(opts.output, BranchOutput, out, branchText)).pipe(Effect.provide(layerOf(opts)))

export const runDiff = (opts: CommonOptions & { readonly name: string }) =>
  Effect.flatMap(branchDiff(opts.name), (out) => emit(opts.output, BranchDiffOutput, out, branchDiffText)).pipe(Effect.provide(layerOf(opts)))
