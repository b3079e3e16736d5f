/**
 * decisions.md 36: on PostgreSQL the database, not pcli, enforces who may write what. Two group
 * roles stand for the principal classes; their members are the login roles people and agents
 * connect as. This module is SQL text only (what `pcli state init` runs, or prints for a DBA).
 */

/** The group role of each principal class. */
export const HUMAN_ROLE = "pcli_human"
export const AGENT_ROLE = "pcli_agent"

/** Ledger kinds only a human may append: a plan's sign-off and the lifting of a freeze. */
export const HUMAN_ONLY_KINDS = ["approval", "unfreeze"] as const

/** Tables only a human may write (an agent reads them). */
export const HUMAN_ONLY_TABLES = ["product_approvals"] as const

/** meta keys members may write: the brief cursor. The version and the store id are the owner's. */
export const MEMBER_META_KEYS = ["last_brief_at"] as const

/** `name` as a quoted SQL identifier. */
export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`

const literalList = (values: ReadonlyArray<string>) => values.map((v) => `'${v.replace(/'/g, "''")}'`).join(", ")

/**
 * The two group roles, made once per cluster (roles are cluster-global). Another store's init, or a
 * concurrent one, may have made them: `duplicate_object` (or the catalog's `unique_violation` in a race) is success.
 */
export const createRolesSql = (): ReadonlyArray<string> =>
  [HUMAN_ROLE, AGENT_ROLE].map(
    (role) => `DO $pcli$ BEGIN
  CREATE ROLE ${role} NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $pcli$`
  )

/**
 * Privileges, the ledger's append-only trigger and row-level security for the store in `schema`.
 * Idempotent: run after every migration, so a table a later version adds is granted too.
 */
export const guardSql = (schema: string): ReadonlyArray<string> => {
  const s = quoteIdent(schema)
  const both = `${HUMAN_ROLE}, ${AGENT_ROLE}`
  const appendOnly = `${s}.pcli_ledger_append_only`
  return [
    `GRANT USAGE ON SCHEMA ${s} TO ${both}`,
    `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${s} TO ${both}`,
    `GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA ${s} TO ${both}`,
    // The ledger is append-only for everyone: no privilege to change a row, and a trigger for the owner too.
    `REVOKE UPDATE, DELETE, TRUNCATE ON ${s}.ledger FROM ${both}`,
    `REVOKE DELETE, TRUNCATE ON ${s}.meta FROM ${both}`,
    ...HUMAN_ONLY_TABLES.map((t) => `REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON ${s}.${quoteIdent(t)} FROM ${AGENT_ROLE}`),
    `CREATE OR REPLACE FUNCTION ${appendOnly}() RETURNS trigger LANGUAGE plpgsql AS $pcli$
BEGIN
  RAISE EXCEPTION 'pcli ledger rows are append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$pcli$`,
    `DROP TRIGGER IF EXISTS ledger_append_only ON ${s}.ledger`,
    `CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON ${s}.ledger FOR EACH ROW EXECUTE FUNCTION ${appendOnly}()`,
    `DROP TRIGGER IF EXISTS ledger_no_truncate ON ${s}.ledger`,
    `CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON ${s}.ledger FOR EACH STATEMENT EXECUTE FUNCTION ${appendOnly}()`,
    // Every member reads every row; a member appends only rows in its own verified name.
    `ALTER TABLE ${s}.ledger ENABLE ROW LEVEL SECURITY`,
    `DROP POLICY IF EXISTS ledger_read ON ${s}.ledger`,
    `CREATE POLICY ledger_read ON ${s}.ledger FOR SELECT TO ${both} USING (true)`,
    `DROP POLICY IF EXISTS ledger_human_append ON ${s}.ledger`,
    `CREATE POLICY ledger_human_append ON ${s}.ledger FOR INSERT TO ${HUMAN_ROLE}
  WITH CHECK (principal_id = current_user::text AND principal_id_verified)`,
    `DROP POLICY IF EXISTS ledger_agent_append ON ${s}.ledger`,
    `CREATE POLICY ledger_agent_append ON ${s}.ledger FOR INSERT TO ${AGENT_ROLE}
  WITH CHECK (principal = 'agent' AND principal_id = current_user::text AND principal_id_verified
    AND kind NOT IN (${literalList(HUMAN_ONLY_KINDS)}))`,
    // meta holds the schema version and the store id (the owner's) beside the brief cursor (anyone's).
    `ALTER TABLE ${s}.meta ENABLE ROW LEVEL SECURITY`,
    `DROP POLICY IF EXISTS meta_read ON ${s}.meta`,
    `CREATE POLICY meta_read ON ${s}.meta FOR SELECT TO ${both} USING (true)`,
    `DROP POLICY IF EXISTS meta_cursor_insert ON ${s}.meta`,
    `CREATE POLICY meta_cursor_insert ON ${s}.meta FOR INSERT TO ${both} WITH CHECK (key IN (${literalList(MEMBER_META_KEYS)}))`,
    `DROP POLICY IF EXISTS meta_cursor_update ON ${s}.meta`,
    `CREATE POLICY meta_cursor_update ON ${s}.meta FOR UPDATE TO ${both}
  USING (key IN (${literalList(MEMBER_META_KEYS)})) WITH CHECK (key IN (${literalList(MEMBER_META_KEYS)}))`
  ]
}

/** Everything `state init` adds around the backend's own tables: the roles first, the guard after the tables. */
export const initSql = (schema: string, tables: ReadonlyArray<string>): ReadonlyArray<string> => [
  ...createRolesSql(),
  `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`,
  ...tables,
  ...guardSql(schema)
]

/** Statements as a script a DBA can run with psql: each ends with `;`. */
export const asScript = (statements: ReadonlyArray<string>) => statements.map((s) => `${s};`).join("\n\n") + "\n"
