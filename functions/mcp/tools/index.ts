import type { NeedsOf } from "../tool.js";
import { addMemory } from "./add-memory.js";
import { findEntities } from "./find-entities.js";
import { forgetMemory } from "./forget-memory.js";
import { getContext } from "./get-context.js";
import { readEntity } from "./read-entity.js";
import { searchMemory } from "./search-memory.js";

/** Every MCP tool, in the order clients list them. A new tool is a file beside these and a line here. */
export const memoryTools = [addMemory, searchMemory, getContext, forgetMemory, findEntities, readEntity] as const;

/** The dependencies the tools use together: what the MCP server is handed. */
export type MemoryToolNeeds = NeedsOf<(typeof memoryTools)[number]>;
