import { Data } from "effect"
import { ECHO_LIMIT, elide, sanitize, truncate } from "./echo"

/** File names, key paths and details come from the user: each is cut and made inert before printing. */
export const where = (file: string, line: number | undefined) => {
  const shown = sanitize(elide(file, 2 * ECHO_LIMIT))
  return line === undefined ? shown : `${shown}:${line}`
}
export const keyPath = (path: string) => sanitize(elide(path, ECHO_LIMIT))
export const detailText = (detail: string) => sanitize(truncate(detail, 3 * ECHO_LIMIT))

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
