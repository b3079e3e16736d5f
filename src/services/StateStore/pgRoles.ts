/**
 * decisions.md 36: on PostgreSQL the database, not pcli, enforces who may write what. Two group
 * roles stand for the principal classes; their members are the login roles people and agents
 * connect as. This module is SQL text only (what `pcli state init` runs, or prints for a DBA).
 */

import { Data } from "effect"

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
  const headTracks = `${s}.pcli_ledger_head_tracks`
  return [
    `GRANT USAGE ON SCHEMA ${s} TO ${both}`,
    `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${s} TO ${both}`,
    `GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA ${s} TO ${both}`,
    // The ledger is append-only for everyone: no privilege to change a row, and a trigger for the owner too.
    `REVOKE UPDATE, DELETE, TRUNCATE ON ${s}.ledger FROM ${both}`,
    `REVOKE DELETE, TRUNCATE ON ${s}.meta FROM ${both}`,
    `REVOKE INSERT, DELETE, TRUNCATE ON ${s}.ledger_head FROM ${both}`,
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
    // The head row only moves forward, to a row the ledger holds. Checked at commit (a deferred
    // constraint trigger): an append inserts its rows and moves the head in one statement.
    `CREATE OR REPLACE FUNCTION ${headTracks}() RETURNS trigger LANGUAGE plpgsql AS $pcli$
BEGIN
  IF NEW.id <> OLD.id OR NEW.seq < OLD.seq
     OR (NEW.seq > 0 AND NEW.row_hash IS DISTINCT FROM (SELECT row_hash FROM ${s}.ledger WHERE seq = NEW.seq)) THEN
    RAISE EXCEPTION 'pcli ledger head must move forward to a ledger row' USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NULL;
END
$pcli$`,
    `DROP TRIGGER IF EXISTS ledger_head_tracks ON ${s}.ledger_head`,
    `CREATE CONSTRAINT TRIGGER ledger_head_tracks AFTER UPDATE ON ${s}.ledger_head DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION ${headTracks}()`,
    // Every member reads every row; a member appends only rows in its own verified name.
    `ALTER TABLE ${s}.ledger ENABLE ROW LEVEL SECURITY`,
    `DROP POLICY IF EXISTS ledger_read ON ${s}.ledger`,
    `CREATE POLICY ledger_read ON ${s}.ledger FOR SELECT TO ${both} USING (true)`,
    `DROP POLICY IF EXISTS ledger_human_append ON ${s}.ledger`,
    `CREATE POLICY ledger_human_append ON ${s}.ledger FOR INSERT TO ${HUMAN_ROLE}
  WITH CHECK (principal_id = current_user::text AND principal_id_verified = 1)`,
    `DROP POLICY IF EXISTS ledger_agent_append ON ${s}.ledger`,
    `CREATE POLICY ledger_agent_append ON ${s}.ledger FOR INSERT TO ${AGENT_ROLE}
  WITH CHECK (principal = 'agent' AND principal_id = current_user::text AND principal_id_verified = 1
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

/** Statements as a script a DBA can run with psql: each ends with `;`. */
export const asScript = (statements: ReadonlyArray<string>) => statements.map((s) => `${s};`).join("\n\n") + "\n"

/** The connection's role and the principal groups it belongs to (directly or through other roles). */
export interface DatabaseRole {
  readonly name: string
  readonly human: boolean
  readonly agent: boolean
}

/**
 * Membership walked through pg_auth_members, not pg_has_role: a superuser "has" every role there,
 * and would be both classes at once. Missing groups (no `state init` yet) read as no membership.
 */
export const ROLE_QUERY = `WITH RECURSIVE member_of(oid) AS (
  SELECT oid FROM pg_roles WHERE rolname = current_user
  UNION SELECT m.roleid FROM pg_auth_members m JOIN member_of ON m.member = member_of.oid
)
SELECT current_user::text AS name,
  EXISTS (SELECT 1 FROM member_of JOIN pg_roles r ON r.oid = member_of.oid WHERE r.rolname = 'pcli_human') AS human,
  EXISTS (SELECT 1 FROM member_of JOIN pg_roles r ON r.oid = member_of.oid WHERE r.rolname = 'pcli_agent') AS agent`

export class PrincipalRoleMissing extends Data.TaggedError("PrincipalRoleMissing")<{ readonly role: string }> {
  readonly code = "principal-role-missing"
  override get message() {
    return `database role ${JSON.stringify(this.role)} is in neither pcli_human nor pcli_agent, so it acts as no principal`
  }
}

