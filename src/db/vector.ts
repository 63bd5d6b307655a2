/** pgvector's text form of a vector (`[0.1,0.2,…]`), to bind as a parameter and cast to `halfvec`. */
export function toVectorLiteral(values: number[]): string {
  return `[${values.join(",")}]`;
}
