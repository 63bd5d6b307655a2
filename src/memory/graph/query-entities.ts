import { nameKey } from "../../vocabulary/entity-names.js";
import { predicatesAsked } from "../../vocabulary/graph-predicates.js";

/** The longest name, in words, a query is read for. */
const MAX_NAME_WORDS = 5;
/** Words of a query read for names: a long query's first ones. */
const MAX_QUERY_WORDS = 200;

/** What a query says of the graph: the names it may use, the relations it asks along, whether it speaks of the user. */
export interface GraphQuery {
  /** Every run of up to five words, folded: matched against entities' `keys`. */
  keys: string[];
  /** Predicates the query's words ask along ("teacher", "kids", "live"). */
  asked: string[];
  /** "my", "I", "we", "the user": the user's own node is where a walk along an asked relation starts. */
  firstPerson: boolean;
}

/**
 * Reads a query for the graph channel.
 *
 * @example
 * readGraphQuery("Where does my daughter's teacher live?");
 * // { keys: ["where", "where does", …, "teacher", …], asked: ["daughter", "child", "teacher", "lives_in", …], firstPerson: true }
 */
export function readGraphQuery(text: string): GraphQuery {
  const words = [...text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’.-]*/gu)]
    .slice(0, MAX_QUERY_WORDS)
    .map((match) => (match[0] as string).replace(/['’]s?$/, "").replace(/[.-]+$/, ""));
  const keys = new Set<string>();
  for (let first = 0; first < words.length; first++)
    for (let length = 1; length <= MAX_NAME_WORDS && first + length <= words.length; length++) {
      const key = nameKey(words.slice(first, first + length).join(" "));
      if (key) keys.add(key);
    }
  const lower = words.map((word) => word.toLowerCase());
  return {
    keys: [...keys],
    asked: [...predicatesAsked(lower)],
    // An agent asks about "the user" where the user would say "I".
    firstPerson: lower.some((word) => ["i", "me", "my", "mine", "we", "us", "our", "user"].includes(word)),
  };
}
