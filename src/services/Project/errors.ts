import { Data } from "effect"

/** The models directory (or a model file in it) could not be read. */
export class ModelsUnreadable extends Data.TaggedError("ModelsUnreadable")<{
  readonly path: string
  readonly detail: string
}> {
  readonly code = "models-unreadable"
  override get message() {
    return `cannot read ${this.path}: ${this.detail}`
  }
}

/** A model file is a symlink resolving outside the models directory: refused before it is read (issue 32 item 7). */
export class ModelOutsideProject extends Data.TaggedError("ModelOutsideProject")<{ readonly file: string }> {
  readonly code = "model-outside-project"
  override get message() {
    return `model file ${this.file} is a symlink that resolves outside the models directory; it was not read`
  }
}

/** A `.sql` file without its sidecar, a sidecar without SQL, or a name that does not match the file. */
export class ModelFileMismatch extends Data.TaggedError("ModelFileMismatch")<{
  readonly model: string
  readonly detail: string
}> {
  readonly code = "model-file-mismatch"
  override get message() {
    return `model ${this.model}: ${this.detail}`
  }
}

/** Two models claim the same name or the same target table. */
export class DuplicateModel extends Data.TaggedError("DuplicateModel")<{
  readonly model: string
  readonly detail: string
}> {
  readonly code = "duplicate-model"
  override get message() {
    return `model ${this.model}: ${this.detail}`
  }
}

/**
 * Two models resolve to one physical relation. Judged on the embedded warehouse's naming
 * (`schema.table`: the file's catalog is the only catalog), so no target can overwrite another's table.
 */
export class DuplicateTarget extends Data.TaggedError("DuplicateTarget")<{
  readonly models: readonly [string, string]
  readonly relation: string
}> {
  readonly code = "duplicate-target"
  override get message() {
    return `models ${this.models[0]} and ${this.models[1]} both resolve to relation ${this.relation} (the embedded warehouse ignores the catalog)`
  }
}

/** One model whose SQL failed to compile: where (file, and line when DuckDB gives a position) and why. */
export interface ModelSqlProblem {
  readonly model: string
  /** The model's `.sql` file (the model name when the caller has no file). */
  readonly file: string
  readonly line?: number
  readonly detail: string
}

export const formatSqlProblem = (p: ModelSqlProblem): string =>
  `${p.file}${p.line === undefined ? "" : `:${p.line}`}: ${p.detail}`

/** Models named in the summary line before it is cut short. */
const summaryNames = 5

/**
 * Every model whose SQL is not exactly one SELECT DuckDB can parse, in model order. The first
 * line of the message summarises (the CLI prints it); one line per model follows.
 */
export class ModelSqlInvalid extends Data.TaggedError("ModelSqlInvalid")<{
  readonly problems: ReadonlyArray<ModelSqlProblem>
}> {
  readonly code = "model-sql-invalid"
  override get message() {
    const n = this.problems.length
    const first = this.problems[0]
    const summary =
      n === 1 && first !== undefined
        ? `1 model failed to compile: ${formatSqlProblem(first)}`
        : `${n} models failed to compile: ${this.problems
            .slice(0, summaryNames)
            .map((p) => p.model)
            .join(", ")}${n > summaryNames ? `, and ${n - summaryNames} more` : ""}`
    return n === 1 ? summary : [summary, ...this.problems.map((p) => `  ${formatSqlProblem(p)}`)].join("\n")
  }
}

/** `depends_on` names a model that does not exist, or the SQL reads a table no model or source provides. */
export class UnknownReference extends Data.TaggedError("UnknownReference")<{
  readonly model: string
  readonly reference: string
  readonly via: "depends_on" | "sql"
}> {
  readonly code = "unknown-reference"
  override get message() {
    return this.via === "depends_on"
      ? `model ${this.model}: depends_on names unknown model ${this.reference}`
      : `model ${this.model}: SQL reads ${this.reference}, which is neither a model target nor a declared source`
  }
}

/** A reference matches the targets of more than one model. */
export class AmbiguousReference extends Data.TaggedError("AmbiguousReference")<{
  readonly model: string
  readonly reference: string
  readonly candidates: ReadonlyArray<string>
}> {
  readonly code = "ambiguous-reference"
  override get message() {
    return `model ${this.model}: SQL reference ${this.reference} matches several models (${this.candidates.join(", ")})`
  }
}

/** The dependency graph has a cycle; `cycle` lists it, first model repeated at the end. */
export class DependencyCycle extends Data.TaggedError("DependencyCycle")<{
  readonly model: string
  readonly cycle: ReadonlyArray<string>
}> {
  readonly code = "dependency-cycle"
  override get message() {
    return `dependency cycle: ${this.cycle.join(" -> ")}`
  }
}

/** The strategy block is inconsistent (e.g. a content-addressed prefix with an unsupported scheme). */
export class InvalidStrategy extends Data.TaggedError("InvalidStrategy")<{
  readonly model: string
  readonly detail: string
}> {
  readonly code = "invalid-strategy"
  override get message() {
    return `model ${this.model}: invalid strategy: ${this.detail}`
  }
}

/** A user-supplied value as it appears in a message: quoted, control characters escaped, at most 64 characters. */
export const quoteArg = (value: string): string => JSON.stringify(value.length > 64 ? `${value.slice(0, 63)}…` : value)

/** A `--from/--to` window that is not a valid range of partition keys for a selected model. */
export class InvalidPartitionWindow extends Data.TaggedError("InvalidPartitionWindow")<{
  readonly from: string
  readonly to: string
  readonly detail: string
}> {
  readonly code = "invalid-partition-window"
  override get message() {
    return `invalid partition window --from ${quoteArg(this.from)} --to ${quoteArg(this.to)}: ${this.detail}`
  }
}

/** Writing the playground was refused or failed. */
export class PlaygroundNotEmpty extends Data.TaggedError("PlaygroundNotEmpty")<{ readonly dir: string }> {
  readonly code = "playground-not-empty"
  override get message() {
    return `refusing to write a playground into ${this.dir}: the directory is not empty`
  }
}

export class PlaygroundWriteFailed extends Data.TaggedError("PlaygroundWriteFailed")<{
  readonly path: string
  readonly detail: string
}> {
  readonly code = "playground-write-failed"
  override get message() {
    return `cannot write ${this.path}: ${this.detail}`
  }
}
