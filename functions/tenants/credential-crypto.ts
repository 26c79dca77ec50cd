/**
 * Tool credentials at rest: AES-256-GCM with a key derived (HKDF-SHA-256) from the service
 * secret CREDENTIALS_KEY, one derived key per tenant, and the tenant and credential id bound as
 * additional data so a ciphertext copied to another tenant or record does not decrypt.
 */

import type { CredentialsKey } from "./credentials-key";

export interface SealedSecret {
  ciphertext: string; // base64
  iv: string; // base64
}

const SALT = new TextEncoder().encode("atc-edge/credentials/v1");

async function deriveKey(serviceSecret: CredentialsKey, tenantId: string): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(serviceSecret), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: SALT, info: new TextEncoder().encode(tenantId) },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));
}

/** Encrypt a credential value for one tenant and record. */
export async function sealSecret(serviceSecret: CredentialsKey, tenantId: string, recordId: string, plaintext: string): Promise<SealedSecret> {
  const key = await deriveKey(serviceSecret, tenantId);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(`${tenantId}/${recordId}`) },
    key,
    new TextEncoder().encode(plaintext),
  );
  return { ciphertext: toBase64(new Uint8Array(sealed)), iv: toBase64(iv) };
}

/** Decrypt a credential sealed by `sealSecret` for the same tenant and record. */
export async function openSecret(serviceSecret: CredentialsKey, tenantId: string, recordId: string, sealed: SealedSecret): Promise<string> {
  const key = await deriveKey(serviceSecret, tenantId);
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: fromBase64(sealed.iv), additionalData: new TextEncoder().encode(`${tenantId}/${recordId}`) },
    key,
    fromBase64(sealed.ciphertext),
  );
  return new TextDecoder().decode(plain);
}

/** What the API may show of a secret: its length class and last characters for long ones. */
export function maskedHint(secret: string): string {
  return secret.length >= 16 ? `••••${secret.slice(-4)}` : "••••";
}
