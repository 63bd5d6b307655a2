/** Which driver serves the database: embedded PGlite, node-postgres, or Neon's serverless driver. */
export type DatabaseKind = "pglite" | "pg" | "neon";
