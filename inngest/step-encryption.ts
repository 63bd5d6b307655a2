import { EncryptionService, encryptionMiddleware } from "@inngest/middleware-encryption";

/**
 * AES-256-GCM through WebCrypto, the same on Node and Workers. The middleware's default service
 * is libsodium (WebAssembly, about half a megabyte gzipped in a Worker bundle); WebCrypto is built
 * into both runtimes. Each value gets a fresh 96-bit nonce; the output is base64(nonce ‖ ciphertext).
 * The first key encrypts; every key is tried to decrypt, which is what a rotation needs.
 */
export class AesGcmEncryption extends EncryptionService {
  readonly identifier = "mnemo/aes-256-gcm";
  private readonly keys: Promise<CryptoKey[]>;

  constructor(secrets: string[]) {
    super();
    if (secrets.length === 0) throw new Error("step encryption needs at least one key");
    // Keys are long random secrets from the environment; SHA-256 turns each into 256 key bits.
    this.keys = Promise.all(
      secrets.map(async (secret) =>
        crypto.subtle.importKey("raw", await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret)), "AES-GCM", false, [
          "encrypt",
          "decrypt",
        ]),
      ),
    );
  }

  async encrypt(value: unknown): Promise<string> {
    const [key] = await this.keys;
    const nonce = crypto.getRandomValues(new Uint8Array(12));
    const sealed = new Uint8Array(
      await crypto.subtle.encrypt(
        { name: "AES-GCM", iv: nonce },
        key as CryptoKey,
        new TextEncoder().encode(JSON.stringify(value ?? null)),
      ),
    );
    const combined = new Uint8Array(nonce.length + sealed.length);
    combined.set(nonce);
    combined.set(sealed, nonce.length);
    return toBase64(combined);
  }

  async decrypt(value: string): Promise<unknown> {
    const combined = fromBase64(value);
    for (const key of await this.keys) {
      try {
        const opened = await crypto.subtle.decrypt({ name: "AES-GCM", iv: combined.slice(0, 12) }, key, combined.slice(12));
        return JSON.parse(new TextDecoder().decode(opened)) as unknown;
      } catch {
        // Not this key: try the next one.
      }
    }
    throw new Error("step data could not be decrypted with any configured key (INNGEST_ENCRYPTION_KEY / INNGEST_ENCRYPTION_FALLBACK_KEYS)");
  }
}

/** The Inngest middleware encrypting step and function outputs with `keys[0]`, decrypting with any of them. */
export function stepEncryption(keys: string[]) {
  return encryptionMiddleware({ key: keys[0] as string, encryptionService: new AesGcmEncryption(keys) });
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (character) => character.charCodeAt(0));
}
