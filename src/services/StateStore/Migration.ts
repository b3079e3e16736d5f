/**
 * One forward, additive step of the state store's schema. Migrations run in version
 * order inside one transaction; each service owns the file that creates its tables.
 */
export interface Migration {
  readonly version: number
  readonly name: string
  readonly statements: ReadonlyArray<string>
}
