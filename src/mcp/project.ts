import { Schema } from "effect"
import { breakingChange } from "../commands/breakingChange"
import { compile } from "../commands/compile"
import { dependents, lineage } from "../commands/lineage"
import { listModels } from "../commands/listModels"
import { BreakingChangeOutput, DependentsOutput, LineageOutput, ListModelsOutput } from "../schemas/lineage"
import { CompileOutput } from "../schemas/pipeline"
import { GitRef, ModelArg, ModelName, NoArgs } from "./args"
import { defineTool } from "./tool"

/** Read tools over the compiled project graph. */
export const projectTools = [
  defineTool({
    name: "compile",
    description: "Compile the project: every model parsed, dependencies resolved, execution order and layers (same JSON as pcli compile --output json)",
    readOnly: true,
    input: NoArgs,
    output: CompileOutput,
    run: () => compile
  }),
  defineTool({
    name: "list_models",
    description: "List the models in execution order with target, layer, tags, classifications and direct dependencies",
    readOnly: true,
    input: NoArgs,
    output: ListModelsOutput,
    run: () => listModels
  }),
  defineTool({
    name: "lineage",
    description: "Upstream and downstream of one model, direct and transitive",
    readOnly: true,
    input: ModelArg,
    output: LineageOutput,
    run: ({ model }) => lineage(model)
  }),
  defineTool({
    name: "dependents",
    description: "Every model a change to this model rebuilds (its blast radius)",
    readOnly: true,
    input: ModelArg,
    output: DependentsOutput,
    run: ({ model }) => dependents(model)
  }),
  defineTool({
    name: "breaking_change",
    description: "Classify the working-tree model against a git base ref as pcli plan does (additive, value change or breaking) with its findings",
    readOnly: true,
    input: Schema.Struct({ model: ModelName, base: Schema.optionalWith(GitRef, { default: () => "HEAD" }) }),
    output: BreakingChangeOutput,
    run: ({ model, base }) => breakingChange({ model, base })
  })
] as const

