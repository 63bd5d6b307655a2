// The embedded database (PGlite: Postgres compiled to WebAssembly) in a worker thread: its
// statements, and the parsing of their results, run here instead of on the service's event loop.
// The main thread's `ThreadedPglite` sends one message per call and gets plain rows back.
// Plain JavaScript so that Node loads it the same way under tsx, vitest and a build.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { btree_gin } from "@electric-sql/pglite/contrib/btree_gin";
import { vector } from "@electric-sql/pglite-pgvector";

/** Thrown inside a transaction's callback to make PGlite roll it back. */
const ROLLBACK = Symbol("rollback");

const ready = PGlite.create(workerData.dataDir, { extensions: { vector, btree_gin } });
// Its failure is answered to the `open` call (and every later one), not raised as unhandled.
ready.catch(() => undefined);
/** Transactions open now, by id: PGlite's handle for the statements, and what ends it. */
const transactions = new Map();
let nextTransaction = 1;

/** What of an error crosses the thread: its message, name, SQLSTATE and the server's other fields. */
function serializeError(error) {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === undefined || typeof value === "function" || typeof value === "object") continue;
    fields[key] = value;
  }
  return { ...fields, name: error.name, message: error.message };
}

/** PGlite's parsers for the types the caller parses itself: the value as the text Postgres sent. */
function rawParsers(types) {
  return Object.fromEntries((types ?? []).map((type) => [type, (value) => value]));
}

function target(transaction) {
  if (transaction === undefined) return ready;
  const open = transactions.get(transaction);
  if (!open) throw new Error(`transaction ${transaction} is not open`);
  return open.handle;
}

async function begin() {
  const db = await ready;
  const id = nextTransaction++;
  const open = {};
  const decided = new Promise((resolve) => (open.decide = resolve));
  await new Promise((started, failed) => {
    open.done = db
      .transaction(async (handle) => {
        open.handle = handle;
        transactions.set(id, open);
        started();
        if (!(await decided)) throw ROLLBACK;
      })
      .catch((error) => {
        if (error !== ROLLBACK) throw error;
      })
      .finally(() => transactions.delete(id));
    // A transaction that could not even begin.
    open.done.catch(failed);
  });
  return id;
}

async function end(id, commit) {
  const open = transactions.get(id);
  if (!open) throw new Error(`transaction ${id} is not open`);
  open.decide(commit);
  await open.done;
  return null;
}

const operations = {
  /** The database is open (or the error that kept it from opening). */
  async open() {
    await ready;
    return null;
  },
  async query({ sql, params, types, rowMode, transaction }) {
    const db = await target(transaction);
    return db.query(sql, params, { rowMode, parsers: rawParsers(types) });
  },
  async exec({ sql, transaction }) {
    const db = await target(transaction);
    return db.exec(sql);
  },
  begin: () => begin(),
  end: ({ transaction, commit }) => end(transaction, commit),
  async close() {
    await (await ready).close();
    return null;
  },
};

parentPort.on("message", async (message) => {
  try {
    const result = await operations[message.op](message);
    parentPort.postMessage({ id: message.id, result });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: serializeError(error) });
  }
});
