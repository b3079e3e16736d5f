/** The suite's PostgreSQL (127.0.0.1:5432, trust auth, database `test`), as the admin or as a named role. */
export const pgAdminUrl = "postgres://postgres@127.0.0.1:5432/test"
export const pgUrlAs = (role: string) => `postgres://${role}@127.0.0.1:5432/test`
