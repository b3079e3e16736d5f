/**
 * `--select` (dbt's node selection): the grammar's parser (`selector.ts`) and its evaluation over
 * the compiled model graph (`evaluate.ts`). Nothing outside this folder imports its other files.
 */
export { type Atom, formatSelection, InvalidModelSelector, parseSelection, type Reach, type Selection, type Term } from "./selector"
export { evaluateSelection, type SelectableGraph, SelectedModelNotFound } from "./evaluate"
export { projectGraph, projectRelative, selectModels } from "./project"
