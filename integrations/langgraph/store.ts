import {
  BaseStore,
  type GetOperation,
  getTextAtPath,
  InvalidNamespaceError,
  type Item,
  type ListNamespacesOperation,
  type MatchCondition,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
  validateNamespace,
} from "@langchain/langgraph-checkpoint";
import { z } from "zod";
import type { MemoryClient } from "../../client/index.js";
import { FACT_TYPES } from "../../src/providers/extraction.js";
import { ExternalIdSchema } from "../../src/vocabulary/external-id.js";
import { okJson } from "../expect-ok.js";
import {
  currentMemories,
  currentVersion,
  firstWritten,
  isPlainObject,
  itemOf,
  type MemoryJson,
  type Owner,
  versionsOf,
} from "./memory-items.js";
import { type Address, addressOf, DERIVED_KINDS, fixedBy, isDerivedKind, memoryKey, NAMESPACE_ROLES } from "./namespaces.js";
import { matchesFilter, ValueFilterSchema } from "./value-filter.js";

/** The most hits one recall answers (`POST /v1/memories/search`). */
const RECALL_LIMIT = 100;
/** The longest text the service keeps for a memory (`POST /v1/memories` `content`). */
const MAX_CONTENT = 5000;

export const MnemoStoreOptionsSchema = z.strictObject({
  /** What the leading labels of a namespace name, in order; the labels after them are a path inside the kind. */
  layout: z
    .array(z.enum(NAMESPACE_ROLES))
    .refine((roles) => new Set(roles).size === roles.length && roles.includes("user") && roles.includes("kind"), {
      message: "names user and kind once each, and app at most once",
    })
    .default(["user", "kind"]),
  /** The app when the layout has none (an app key fills in its own). */
  appId: ExternalIdSchema.optional(),
  /** The fact type of items of kinds other than `profile`, `preference` and `rule` (which are their own type). */
  subtype: z.enum(FACT_TYPES).default("preference"),
  /** Fields of a value whose text recall searches, LangGraph's `index.fields` (`$`: the whole value as JSON). */
  index: z.array(z.string().min(1).max(200)).min(1).max(20).optional(),
  /** Query hits below this relevance (0-1) are left out. */
  minRelevance: z.number().min(0).max(1).default(0),
});
export type MnemoStoreOptions = z.input<typeof MnemoStoreOptionsSchema>;

const KeySchema = z.string().min(1).max(1000);
const ValueSchema = z
  .record(z.string(), z.unknown())
  .refine(isJson, { message: "must be JSON: plain objects, arrays, strings, finite numbers, booleans, null" });
const SearchSchema = z.object({
  filter: ValueFilterSchema.optional(),
  limit: z.number().int().min(1).max(RECALL_LIMIT).default(10),
  offset: z.number().int().min(0).max(100_000).default(0),
  query: z.string().trim().min(1).max(20_000).optional(),
});
const ListSchema = z.object({
  maxDepth: z.number().int().min(1).optional(),
  limit: z.number().int().min(1).max(10_000).default(100),
  offset: z.number().int().min(0).default(0),
});

/**
 * LangGraph's `BaseStore` over this service's memory, for `graph.compile({ store })`: nodes read and
 * write through `config.store` (or `getStore()`), and LangGraph's memory tools use it as any store.
 * A namespace names an app, a user and a kind (`layout`, default `[user, kind]`; labels after those
 * are a path inside the kind); an item is a fact of that user under the key `kind:path…:key`, the
 * keys the pipeline's own facts use (`["ana", "profile"]` + `"location"` is `profile:location`).
 *
 * - `put` writes the fact through consolidation (`POST /v1/memories`): a new value is a new version
 *   (the old one kept in history), the same value a no-op; a value the user's memory already holds
 *   under another key is refused with an error naming that key. `index` (or the store's `index`)
 *   picks the text recall searches; without it, `value.content`, else the value as JSON.
 * - `get` reads the key's current version; `delete` forgets it (`DELETE /v1/memories/:id`, history kept).
 * - `search` with a `query` is answered by hybrid recall (the 100 best hits, `score` 0-1), without
 *   one by the newest items; `filter` compares the values' fields; both stay inside the prefix.
 * - The kinds `episodic`, `insight` and `trait` hold what the pipeline derived, one item per memory
 *   keyed by its id: searched, read and forgotten, never put.
 * - `listNamespaces` lists one user's namespaces: its prefix must name the user.
 *
 * @example
 * const store = new MnemoStore(createMemoryClient(url, { apiKey }));
 * const graph = new StateGraph(State).addNode("remember", async (state, config) => {
 *   await config.store?.put([state.userId, "profile"], "diet", { content: "User is vegetarian." });
 * }).compile({ store });
 */
export class MnemoStore extends BaseStore {
  private readonly options: z.output<typeof MnemoStoreOptionsSchema>;

  constructor(
    private readonly client: MemoryClient,
    options: MnemoStoreOptions = {},
  ) {
    super();
    this.options = MnemoStoreOptionsSchema.parse(options);
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    // In order: a put then a get of the same key in one batch reads what was put.
    for (const operation of operations) results.push(await this.apply(operation));
    return results as OperationResults<Op>;
  }

  private apply(operation: Operation): Promise<unknown> {
    if ("namespacePrefix" in operation) return this.find(operation);
    if (!("namespace" in operation)) return this.list(operation);
    if ("value" in operation) return operation.value === null ? this.forget(operation) : this.write(operation);
    return this.read(operation);
  }

  private async read(operation: GetOperation): Promise<Item | null> {
    validateNamespace(operation.namespace, { allowReservedRoot: true });
    const address = this.address(operation.namespace);
    const key = KeySchema.parse(operation.key);
    if (isDerivedKind(address.kind)) {
      const memory = await this.derived(address, key);
      return memory ? (itemOf(memory, this.options.layout) ?? null) : null;
    }
    const versions = await versionsOf(this.client, address, memoryKey(address.kind, address.path, key));
    const current = currentVersion(versions);
    return current ? (itemOf(current, this.options.layout, firstWritten(current, versions)) ?? null) : null;
  }

  private async write(operation: PutOperation): Promise<void> {
    validateNamespace(operation.namespace);
    const address = this.address(operation.namespace);
    if (isDerivedKind(address.kind)) {
      throw new InvalidNamespaceError(`${address.kind} holds what the pipeline derived: it is searched, read and forgotten, never put`);
    }
    const key = memoryKey(address.kind, address.path, KeySchema.parse(operation.key));
    const value = ValueSchema.parse(operation.value);
    if (operation.index === false) throw new Error("put with index: false: every memory of this service is searchable");
    const subtype = (FACT_TYPES as readonly string[]).includes(address.kind)
      ? (address.kind as (typeof FACT_TYPES)[number])
      : this.options.subtype;
    const written = await okJson(
      this.client.v1.memories.$post({
        json: {
          ...this.owner(address),
          type: "semantic",
          subtype,
          key,
          value,
          content: indexedText(value, operation.index ?? this.options.index),
        },
      }),
    );
    if (written.memory.key !== key) {
      throw new Error(
        `put ${key}: the service keeps this as ${written.memory.key ?? "a memory"} (memory ${written.memory.id}: ${written.reason}), not under ${key}`,
      );
    }
  }

  private async forget(operation: PutOperation): Promise<void> {
    validateNamespace(operation.namespace, { allowReservedRoot: true });
    const address = this.address(operation.namespace);
    const key = KeySchema.parse(operation.key);
    const memory = isDerivedKind(address.kind)
      ? await this.derived(address, key)
      : currentVersion(await versionsOf(this.client, address, memoryKey(address.kind, address.path, key)));
    if (memory) await okJson(this.client.v1.memories[":id"].$delete({ param: { id: memory.id } }));
  }

  private async find(operation: SearchOperation): Promise<SearchItem[]> {
    validateNamespace(operation.namespacePrefix, { allowEmpty: true, allowReservedRoot: true });
    const { filter, limit, offset, query } = SearchSchema.parse(operation);
    const prefix = operation.namespacePrefix;
    const owner = this.ownerOf(prefix);
    const kind = fixedBy(prefix, this.options.layout).kind;
    const types = kind === undefined ? undefined : isDerivedKind(kind) ? [kind] : ["semantic" as const];
    const inScope = (item: Item) => startsWith(item.namespace, prefix) && matchesFilter(item.value, filter);
    let found: SearchItem[] = [];
    if (query) {
      if (offset + limit > RECALL_LIMIT)
        throw new Error(`search with a query reads the ${RECALL_LIMIT} best hits: offset + limit must not exceed it`);
      const { memories: hits } = await okJson(
        this.client.v1.memories.search.$post({
          json: {
            ...this.ownerJson(owner),
            query,
            limit: RECALL_LIMIT,
            min_relevance: this.options.minRelevance,
            ...(types ? { types } : {}),
          },
        }),
      );
      const full =
        hits.length > 0
          ? await this.expand(
              owner,
              hits.map((hit) => hit.id),
            )
          : new Map<string, MemoryJson>();
      for (const hit of hits) {
        const memory = full.get(hit.id);
        const item = memory ? itemOf(memory, this.options.layout) : undefined;
        if (item && inScope(item)) found.push({ ...item, score: hit.score });
      }
      found = found.slice(offset, offset + limit);
    } else {
      for await (const memory of currentMemories(this.client, owner, types?.[0])) {
        const item = itemOf(memory, this.options.layout);
        if (item && inScope(item)) found.push(item);
        if (found.length >= offset + limit) break;
      }
      found = found.slice(offset);
    }
    return Promise.all(found.map((item) => this.withFirstWritten(owner, item)));
  }

  private async list(operation: ListNamespacesOperation): Promise<string[][]> {
    const { maxDepth, limit, offset } = ListSchema.parse(operation);
    const conditions = operation.matchConditions ?? [];
    for (const condition of conditions) validateNamespace(condition.path, { allowEmpty: true, allowReservedRoot: true });
    const prefix = conditions.find((condition) => condition.matchType === "prefix")?.path ?? [];
    const owner = this.ownerOf(prefix);
    const found = new Map<string, string[]>();
    const add = (namespace: string[]) => {
      const shown = maxDepth === undefined ? namespace : namespace.slice(0, maxDepth);
      if (conditions.every((condition) => matches(condition, namespace))) found.set(JSON.stringify(shown), shown);
    };
    for await (const memory of currentMemories(this.client, owner, "semantic")) {
      const item = itemOf(memory, this.options.layout);
      if (item) add(item.namespace);
    }
    for (const kind of DERIVED_KINDS) {
      const [any] = await currentMemories(this.client, owner, kind)
        .next()
        .then((next) => (next.done ? [] : [next.value]));
      const item = any ? itemOf(any, this.options.layout) : undefined;
      if (item) add(item.namespace);
    }
    const sorted = [...found.values()].sort((a, b) => a.join("\u0000").localeCompare(b.join("\u0000")));
    return sorted.slice(offset, offset + limit);
  }

  /** A derived memory of the address's kind and user, by id; undefined when it is none of theirs or not current. */
  private async derived(address: Address, id: string): Promise<MemoryJson | undefined> {
    if (!z.uuid().safeParse(id).success) return undefined;
    const response = await this.client.v1.memories[":id"].$get({ param: { id } });
    if (response.status === 404) return undefined;
    const memory = await okJson(Promise.resolve(response));
    const owned = memory.user_id === address.userId && (address.appId === undefined || memory.app_id === address.appId);
    return owned && memory.type === address.kind && memory.expired_at === null ? memory : undefined;
  }

  private async expand(owner: Owner, ids: string[]): Promise<Map<string, MemoryJson>> {
    const { memories } = await okJson(this.client.v1.memories.expand.$post({ json: { ...this.ownerJson(owner), ids } }));
    return new Map(memories.map((memory) => [memory.id, memory]));
  }

  /** A fact's item with `createdAt` from its first version (a derived memory has one version). */
  private async withFirstWritten(owner: Owner, item: SearchItem): Promise<SearchItem> {
    const address = this.address(item.namespace);
    if (isDerivedKind(address.kind)) return item;
    const versions = await versionsOf(this.client, owner, memoryKey(address.kind, address.path, item.key));
    const current = currentVersion(versions);
    return current ? { ...item, createdAt: new Date(firstWritten(current, versions)) } : item;
  }

  private address(namespace: readonly string[]): Address {
    const address = addressOf(namespace, this.options.layout, this.options.appId);
    ExternalIdSchema.parse(address.userId);
    if (address.appId !== undefined) ExternalIdSchema.parse(address.appId);
    return address;
  }

  /** The user (and app) a prefix names; the service lists no users, so one it does not name is refused. */
  private ownerOf(prefix: readonly string[]): Owner {
    const fixed = fixedBy(prefix, this.options.layout);
    const wantsApp = this.options.layout.includes("app");
    if (fixed.user === undefined || (wantsApp && fixed.app === undefined)) {
      throw new InvalidNamespaceError(
        `the namespace prefix ${JSON.stringify(prefix)} must name the ${wantsApp ? "app and the user" : "user"} (layout ${this.options.layout.join(", ")}): the service lists no users`,
      );
    }
    return {
      userId: ExternalIdSchema.parse(fixed.user),
      appId: fixed.app !== undefined ? ExternalIdSchema.parse(fixed.app) : this.options.appId,
    };
  }

  private owner(address: Address) {
    return this.ownerJson({ userId: address.userId, appId: address.appId });
  }

  private ownerJson(owner: Owner) {
    return { user_id: owner.userId, ...(owner.appId ? { app_id: owner.appId } : {}) };
  }
}

/** The text recall searches for a value: the indexed fields' text, else `content`, else the value as JSON. */
function indexedText(value: Record<string, unknown>, fields: readonly string[] | undefined): string {
  const parts = fields
    ? fields.flatMap((field) => (field === "$" ? [JSON.stringify(value)] : getTextAtPath(value, field)))
    : typeof value["content"] === "string"
      ? [value["content"]]
      : [JSON.stringify(value)];
  const text = parts.join("\n").trim();
  if (!text) throw new Error(`put: the value has no text at ${(fields ?? ["content"]).join(", ")} for recall to search`);
  if (text.length > MAX_CONTENT)
    throw new Error(`put: the text recall searches is ${text.length} characters; the service keeps ${MAX_CONTENT}`);
  return text;
}

function startsWith(namespace: readonly string[], prefix: readonly string[]): boolean {
  return prefix.every((label, index) => namespace[index] === label);
}

function matches(condition: MatchCondition, namespace: readonly string[]): boolean {
  const { path } = condition;
  if (path.length > namespace.length) return false;
  const offset = condition.matchType === "prefix" ? 0 : namespace.length - path.length;
  return path.every((label, index) => label === "*" || namespace[offset + index] === label);
}

function isJson(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  return isPlainObject(value) && Object.getPrototypeOf(value) === Object.prototype && Object.values(value).every(isJson);
}
