/** Orders strings by UTF-16 code units, as `<` does: locale-free and the same on every machine (`localeCompare` is not). */
export const compareCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
