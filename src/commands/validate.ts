import { validateProject } from "../services/Validate/Validate"

/** `pcli validate`: offline checks of pcli.toml (every warehouse adapter has an authentication method). */
export const validate = validateProject
