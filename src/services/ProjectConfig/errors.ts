import { Data } from "effect"
import { keyPath, where } from "../../platform/tomlErrors"

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

// The TOML decoding errors live with the TOML helpers; re-exported for the config's importers.
export { InvalidValue, type TomlDecodeError, TomlSyntax, UnknownKey } from "../../platform/tomlErrors"
