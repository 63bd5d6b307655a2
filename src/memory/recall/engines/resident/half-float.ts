/** Every IEEE half-precision bit pattern as a float, so decoding is one table lookup per component. */
const HALF_TO_FLOAT = (() => {
  const table = new Float32Array(65536);
  for (let bits = 0; bits < 65536; bits++) {
    const sign = bits & 0x8000 ? -1 : 1;
    const exponent = (bits >> 10) & 0x1f;
    const fraction = bits & 0x3ff;
    table[bits] =
      exponent === 0
        ? sign * 2 ** -14 * (fraction / 1024)
        : exponent === 31
          ? fraction === 0
            ? sign * Number.POSITIVE_INFINITY
            : Number.NaN
          : sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
  }
  return table;
})();

/**
 * A `halfvec` from pgvector's binary form (`halfvec_send`) in hex: a 16-bit dimension, 16 unused
 * bits, then each component as a big-endian half-precision float.
 */
export function decodeHalfvecHex(hex: string): Float32Array {
  const bytes = Buffer.from(hex, "hex");
  const dimensions = bytes.readUInt16BE(0);
  if (bytes.length !== 4 + 2 * dimensions) throw new Error(`halfvec of ${dimensions} dimensions in ${bytes.length} bytes`);
  const values = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) values[i] = HALF_TO_FLOAT[bytes.readUInt16BE(4 + 2 * i)] as number;
  return values;
}
