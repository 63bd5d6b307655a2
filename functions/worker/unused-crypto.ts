/**
 * Stands in, in the Worker bundle only, for libsodium and crypto-js: @inngest/middleware-encryption
 * imports them for its default and legacy services, and we pass our own WebCrypto service
 * (inngest/step-encryption.ts), so neither is ever called — they would only add ~0.5 MB gzipped.
 */
const unused = new Proxy(
  {},
  {
    get(_target, property) {
      if (property === "then" || typeof property === "symbol") return undefined;
      throw new Error(
        `${String(property)}: libsodium / crypto-js are not bundled on Workers; step encryption uses WebCrypto (inngest/step-encryption.ts)`,
      );
    },
  },
);
export default unused;
