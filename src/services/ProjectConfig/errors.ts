import { Data } from "effect"
import { ECHO_LIMIT, elide, sanitize, truncate } from "./echo"

/** File names, key paths and details come from the user: each is cut and made inert before printing. */
const where = (file: string, line: number | undefined) => {
  const shown = sanitize(elide(file, 2 * ECHO_LIMIT))
  return line === undefined ? shown : `${shown}:${line}`
}
const keyPath = (path: string) => sanitize(elide(path, ECHO_LIMIT))
const detailText = (detail: string) => sanitize(truncate(detail, 3 * ECHO_LIMIT))

/** A `${VAR}` reference whose variable is not set in the environment. */
export class MissingEnvVar extends Data.TaggedError("MissingEnvVar")<{
  readonly file: string
  readonly line: number
  readonly variable: string
}> {
  readonly code = "config-missing-env"
  override get message() {
    return `${where(this.file, this.line)}: environment variable ${keyPath(this.variable)} is not set (referenced as \${${keyPath(this.variable)}})`
  }
}

/** The file is not valid TOML. */
export class TomlSyntax extends Data.TaggedError("TomlSyntax")<{
  readonly file: string
  readonly line: number | undefined
  readonly detail: string
}> {
  readonly code = "toml-syntax"
  override get message() {
    return `${where(this.file, this.line)}: invalid TOML: ${detailText(this.detail)}`
  }
}

/** A key the schema does not know, named by its dotted path. */
export class UnknownKey extends Data.TaggedError("UnknownKey")<{
  readonly file: string
  readonly line: number | undefined
  readonly path: string
}> {
  readonly code = "config-unknown-key"
  override get message() {
    return `${where(this.file, this.line)}: unknown key ${keyPath(this.path)}`
  }
}

/** A value of the wrong type or outside its allowed set. */
export class InvalidValue extends Data.TaggedError("InvalidValue")<{
  readonly file: string
  readonly line: number | undefined
  readonly path: string
  readonly detail: string
}> {
  readonly code = "config-invalid"
  override get message() {
    return `${where(this.file, this.line)}: ${this.path === "" ? "" : `${keyPath(this.path)}: `}${detailText(this.detail)}`
  }
}

export type TomlDecodeError = TomlSyntax | UnknownKey | InvalidValue
