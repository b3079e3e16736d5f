// The few parts of node-postgres (`pg`, a dependency of @effect/sql-pg) the state store uses directly.
declare module "pg" {
  export interface PoolConfig {
    readonly connectionString?: string
    readonly connectionTimeoutMillis?: number
    readonly options?: string
    readonly application_name?: string
    readonly max?: number
    readonly types?: { readonly getTypeParser: (oid: number, format?: "text" | "binary") => (value: string) => unknown }
  }
  export class Pool {
    constructor(config: PoolConfig)
    readonly options: PoolConfig
    on(event: "error", listener: (error: Error) => void): this
    query(text: string, values?: ReadonlyArray<unknown>): Promise<{ readonly rows: ReadonlyArray<Record<string, unknown>> }>
    end(): Promise<void>
  }
  export class Client {
    constructor(config: { readonly connectionString?: string })
    connect(): Promise<void>
    query(text: string, values?: Array<unknown>): Promise<{ readonly rows: ReadonlyArray<Record<string, unknown>> }>
    end(): Promise<void>
  }
  export const types: {
    readonly builtins: { readonly INT8: number; readonly NUMERIC: number }
    readonly getTypeParser: (oid: number, format?: "text" | "binary") => (value: string) => unknown
  }
  const pg: { readonly Pool: typeof Pool; readonly Client: typeof Client; readonly types: typeof types }
  export default pg
}
