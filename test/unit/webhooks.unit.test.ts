import { createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  generateWebhookSecret,
  isValidWebhookSecret,
  signWebhook,
  verifyWebhook,
  type WebhookBody,
  type WebhookHeaders,
  type WebhookVerification,
} from "../../functions/webhooks/standard-webhooks";

const NOW = 1_750_000_000;
const ID = "msg_2xYkQ8r1nB7";
const BODY = '{"type":"deploy.finished","data":{"tool":"getMovieReviews","ok":true,"note":"héllo ✓"}}';

/** An independent signer: Node's crypto, not the module under test. */
function nodeSign(secret: string, id: string, timestamp: number, body: string | Buffer): string {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const mac = createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest("base64");
  return `v1,${mac}`;
}

function headersOf(id: string, timestamp: number | string, signature: string): Record<string, string> {
  return { "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signature };
}

async function verify(
  headers: WebhookHeaders,
  secrets: string[],
  options: { body?: WebhookBody; nowSeconds?: number; toleranceSeconds?: number } = {},
): Promise<WebhookVerification> {
  return verifyWebhook({
    headers,
    body: options.body ?? BODY,
    secrets,
    nowSeconds: options.nowSeconds ?? NOW,
    ...(options.toleranceSeconds === undefined ? {} : { toleranceSeconds: options.toleranceSeconds }),
  });
}

function reasonOf(result: WebhookVerification): string {
  return result.ok ? "ok" : result.reason;
}

describe("generateWebhookSecret", () => {
  it("is whsec_ + base64 of 32 random bytes", () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), "base64")).toHaveLength(32);
    expect(a).not.toBe(b);
    expect(isValidWebhookSecret(a)).toBe(true);
  });

  it("validates secrets: prefix, canonical base64, 24..64 bytes", () => {
    expect(isValidWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")).toBe(true); // 24 bytes
    expect(isValidWebhookSecret(`whsec_${randomBytes(64).toString("base64")}`)).toBe(true);
    expect(isValidWebhookSecret(`whsec_${randomBytes(23).toString("base64")}`)).toBe(false);
    expect(isValidWebhookSecret(`whsec_${randomBytes(65).toString("base64")}`)).toBe(false);
    expect(isValidWebhookSecret(randomBytes(32).toString("base64"))).toBe(false); // no prefix
    expect(isValidWebhookSecret(`whsec_${"_-".repeat(21)}A=`)).toBe(false); // base64url alphabet
    expect(isValidWebhookSecret(`whsec_${randomBytes(32).toString("base64").replace(/=+$/, "")}`)).toBe(false); // unpadded
    expect(isValidWebhookSecret("whsec_")).toBe(false);
    expect(isValidWebhookSecret("whsec_!!!!")).toBe(false);
  });
});

describe("signWebhook", () => {
  it("reproduces the Standard Webhooks reference vector", async () => {
    const signature = await signWebhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}');
    expect(signature).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("agrees with an independent HMAC computed by Node's crypto.createHmac", async () => {
    for (let i = 0; i < 5; i++) {
      const secret = generateWebhookSecret();
      const id = `msg_${randomBytes(9).toString("hex")}`;
      const body = `${BODY}${"x".repeat(i * 100)}\n`;
      expect(await signWebhook(secret, id, NOW + i, body)).toBe(nodeSign(secret, id, NOW + i, body));
    }
  });

  it("rejects a malformed secret, id or timestamp when signing", async () => {
    const secret = generateWebhookSecret();
    await expect(signWebhook("not-a-secret", ID, NOW, BODY)).rejects.toThrow(TypeError);
    await expect(signWebhook(secret, "", NOW, BODY)).rejects.toThrow(TypeError);
    await expect(signWebhook(secret, "has space", NOW, BODY)).rejects.toThrow(TypeError);
    await expect(signWebhook(secret, ID, 1.5, BODY)).rejects.toThrow(TypeError);
    await expect(signWebhook(secret, ID, -1, BODY)).rejects.toThrow(TypeError);
  });
});

describe("verifyWebhook", () => {
  it("verifies the reference vector at its own time", async () => {
    const result = await verifyWebhook({
      headers: headersOf("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="),
      body: '{"test": 2432232314}',
      secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
      nowSeconds: 1614265330,
    });
    expect(result).toEqual({ ok: true, id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1614265330 });
  });

  it("round-trips sign → verify with Headers and with a plain record in any case", async () => {
    const secret = generateWebhookSecret();
    const signature = await signWebhook(secret, ID, NOW, BODY);
    const expected = { ok: true, id: ID, timestamp: NOW };

    expect(await verify(new Headers(headersOf(ID, NOW, signature)), [secret])).toEqual(expected);
    expect(await verify(headersOf(ID, NOW, signature), [secret])).toEqual(expected);
    const mixedCase = { "Webhook-Id": ID, "WEBHOOK-TIMESTAMP": String(NOW), "webhook-Signature": ` ${signature} ` };
    expect(await verify(mixedCase, [secret])).toEqual(expected);
    expect(await verify(new Headers(mixedCase), [secret])).toEqual(expected);
    // Node-style records may hold arrays.
    expect(await verify({ ...headersOf(ID, NOW, signature), "webhook-signature": [signature] }, [secret])).toEqual(expected);
  });

  it("accepts a delivery signed by Node's crypto (interoperability)", async () => {
    const secret = generateWebhookSecret();
    expect(await verify(headersOf(ID, NOW, nodeSign(secret, ID, NOW, BODY)), [secret])).toEqual({
      ok: true,
      id: ID,
      timestamp: NOW,
    });
  });

  it("verifies raw body bytes, including a byte-order mark a text decode would drop", async () => {
    const secret = generateWebhookSecret();
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(BODY)]);
    const headers = headersOf(ID, NOW, nodeSign(secret, ID, NOW, raw));
    expect(reasonOf(await verify(headers, [secret], { body: new Uint8Array(raw) }))).toBe("ok");
    const arrayBuffer = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);
    expect(reasonOf(await verify(headers, [secret], { body: arrayBuffer }))).toBe("ok");
    expect(reasonOf(await verify(headers, [secret], { body: new TextDecoder().decode(raw) }))).toBe("no_valid_signature");
  });

  it("reports missing or empty headers", async () => {
    const secret = generateWebhookSecret();
    const full = headersOf(ID, NOW, await signWebhook(secret, ID, NOW, BODY));
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"] as const) {
      const without: Record<string, string> = { ...full };
      delete without[name];
      const missing = await verify(without, [secret]);
      expect(missing).toMatchObject({ ok: false, reason: "missing_headers" });
      expect(missing.ok ? "" : missing.message).toContain(name);
      expect(reasonOf(await verify({ ...full, [name]: "" }, [secret]))).toBe("missing_headers");
      expect(reasonOf(await verify({ ...full, [name]: " \t " }, [secret]))).toBe("missing_headers");
      expect(reasonOf(await verify(new Headers({ ...full, [name]: "" }), [secret]))).toBe("missing_headers");
    }
    expect(reasonOf(await verify({}, [secret]))).toBe("missing_headers");
    expect(reasonOf(await verify(new Headers(), [secret]))).toBe("missing_headers");
  });

  it("rejects a malformed webhook-id", async () => {
    const secret = generateWebhookSecret();
    const longest = "m".repeat(256);
    const ok = await verify(headersOf(longest, NOW, await signWebhook(secret, longest, NOW, BODY)), [secret]);
    expect(reasonOf(ok)).toBe("ok");
    const tooLong = "m".repeat(257);
    const signature = nodeSign(secret, tooLong, NOW, BODY);
    expect(reasonOf(await verify(headersOf(tooLong, NOW, signature), [secret]))).toBe("missing_headers");
    for (const bad of ["msg 1", "msg\u00001", "msg\u00e91"]) {
      expect(reasonOf(await verify(headersOf(bad, NOW, nodeSign(secret, bad, NOW, BODY)), [secret]))).toBe("missing_headers");
    }
  });

  it("rejects a wrong signature", async () => {
    const secret = generateWebhookSecret();
    const other = generateWebhookSecret();
    const wrong = await signWebhook(other, ID, NOW, BODY);
    expect(reasonOf(await verify(headersOf(ID, NOW, wrong), [secret]))).toBe("no_valid_signature");
    // A signature over another id or timestamp does not transfer.
    const forOtherId = await signWebhook(secret, "msg_other", NOW, BODY);
    expect(reasonOf(await verify(headersOf(ID, NOW, forOtherId), [secret]))).toBe("no_valid_signature");
    const forOtherTime = await signWebhook(secret, ID, NOW - 1, BODY);
    expect(reasonOf(await verify(headersOf(ID, NOW, forOtherTime), [secret]))).toBe("no_valid_signature");
    // One flipped bit in the MAC.
    const good = await signWebhook(secret, ID, NOW, BODY);
    const mac = Buffer.from(good.slice(3), "base64");
    mac[31] = (mac[31] ?? 0) ^ 1;
    expect(reasonOf(await verify(headersOf(ID, NOW, `v1,${mac.toString("base64")}`), [secret]))).toBe("no_valid_signature");
  });

  it("rejects a body with one changed byte", async () => {
    const secret = generateWebhookSecret();
    const headers = headersOf(ID, NOW, await signWebhook(secret, ID, NOW, BODY));
    expect(reasonOf(await verify(headers, [secret]))).toBe("ok");
    for (const index of [0, 10, BODY.length - 1]) {
      const bytes = new TextEncoder().encode(BODY);
      bytes[index] = (bytes[index] ?? 0) ^ 0x01;
      expect(reasonOf(await verify(headers, [secret], { body: bytes }))).toBe("no_valid_signature");
    }
    expect(reasonOf(await verify(headers, [secret], { body: `${BODY} ` }))).toBe("no_valid_signature");
    expect(reasonOf(await verify(headers, [secret], { body: "" }))).toBe("no_valid_signature");
  });

  it("enforces a 5-minute tolerance in both directions", async () => {
    const secret = generateWebhookSecret();
    const at = async (timestamp: number, nowSeconds = NOW) =>
      reasonOf(await verify(headersOf(ID, timestamp, await signWebhook(secret, ID, timestamp, BODY)), [secret], { nowSeconds }));
    expect(await at(NOW - 301)).toBe("timestamp_too_old");
    expect(await at(NOW + 301)).toBe("timestamp_in_future");
    expect(await at(NOW - 299)).toBe("ok");
    expect(await at(NOW + 299)).toBe("ok");
    expect(await at(NOW - 300)).toBe("ok");
    expect(await at(NOW + 300)).toBe("ok");
    // A fractional clock is floored, as in the reference library.
    expect(await at(NOW - 300, NOW + 0.999)).toBe("ok");
    expect(await at(NOW - 301, NOW + 0.999)).toBe("timestamp_too_old");
    // The time check precedes the signature check: a stale replay reports its age.
    const stale = await verify(headersOf(ID, NOW - 3600, "v1,AAAA"), [secret]);
    expect(stale).toMatchObject({ ok: false, reason: "timestamp_too_old" });
  });

  it("honours a custom tolerance", async () => {
    const secret = generateWebhookSecret();
    const headers = headersOf(ID, NOW - 61, await signWebhook(secret, ID, NOW - 61, BODY));
    expect(reasonOf(await verify(headers, [secret], { toleranceSeconds: 60 }))).toBe("timestamp_too_old");
    expect(reasonOf(await verify(headers, [secret], { toleranceSeconds: 61 }))).toBe("ok");
    await expect(verify(headers, [secret], { toleranceSeconds: -1 })).rejects.toThrow(RangeError);
    await expect(verify(headers, [secret], { nowSeconds: Number.NaN })).rejects.toThrow(RangeError);
  });

  it("rejects non-integer timestamps", async () => {
    const secret = generateWebhookSecret();
    const signature = await signWebhook(secret, ID, NOW, BODY);
    for (const bad of [
      `${NOW}.0`,
      `${NOW}.5`,
      "1.75e9",
      `-${NOW}`,
      `+${NOW}`,
      `0${NOW}`,
      `${NOW}abc`,
      "abc",
      "0x1",
      "NaN",
      "Infinity",
      "99999999999999999999",
      `${NOW} ${NOW}`,
    ]) {
      expect(reasonOf(await verify(headersOf(ID, bad, signature), [secret])), bad).toBe("invalid_timestamp");
    }
  });

  it("accepts when any one of several signatures matches", async () => {
    const secret = generateWebhookSecret();
    const good = await signWebhook(secret, ID, NOW, BODY);
    const decoys = await Promise.all([1, 2, 3].map(() => signWebhook(generateWebhookSecret(), ID, NOW, BODY)));
    const header = [decoys[0], decoys[1], good, decoys[2]].join(" ");
    expect(reasonOf(await verify(headersOf(ID, NOW, header), [secret]))).toBe("ok");
    expect(reasonOf(await verify(headersOf(ID, NOW, `${decoys.join("  ")}\t${good}`), [secret]))).toBe("ok");
    expect(reasonOf(await verify(headersOf(ID, NOW, decoys.join(" ")), [secret]))).toBe("no_valid_signature");
  });

  it("supports secret rotation: a delivery signed with the old secret still verifies", async () => {
    const oldSecret = generateWebhookSecret();
    const newSecret = generateWebhookSecret();
    const signedOld = await signWebhook(oldSecret, ID, NOW, BODY);
    const signedNew = await signWebhook(newSecret, ID, NOW, BODY);
    expect(reasonOf(await verify(headersOf(ID, NOW, signedOld), [newSecret, oldSecret]))).toBe("ok");
    expect(reasonOf(await verify(headersOf(ID, NOW, signedOld), [oldSecret, newSecret]))).toBe("ok");
    expect(reasonOf(await verify(headersOf(ID, NOW, `${signedOld} ${signedNew}`), [newSecret]))).toBe("ok");
    // After the old secret is retired it no longer verifies.
    expect(reasonOf(await verify(headersOf(ID, NOW, signedOld), [newSecret]))).toBe("no_valid_signature");
  });

  it("ignores signatures of other versions", async () => {
    const secret = generateWebhookSecret();
    const good = await signWebhook(secret, ID, NOW, BODY);
    const mac = good.slice(3);
    for (const other of [`v2,${mac}`, `V1,${mac}`, `v1a,${mac}`, `v1a${mac}`, `,${mac}`, `v1 ${mac}`, mac]) {
      expect(reasonOf(await verify(headersOf(ID, NOW, other), [secret])), other).toBe("no_valid_signature");
    }
    expect(reasonOf(await verify(headersOf(ID, NOW, `v2,${mac} ${good}`), [secret]))).toBe("ok");
    expect(reasonOf(await verify(headersOf(ID, NOW, `v1a,AAAA ${good} v2,xyz`), [secret]))).toBe("ok");
  });

  it("handles malformed base64 and garbage headers without throwing", async () => {
    const secret = generateWebhookSecret();
    const good = await signWebhook(secret, ID, NOW, BODY);
    const mac = good.slice(3);
    const malformed = [
      "v1,",
      "v1,=",
      "v1,====",
      "v1,!!!!",
      "v1,%%%%%%%%",
      `v1,${mac.slice(0, -1)}`, // padding removed
      `v1,${mac.replace(/=$/, "")}`,
      `v1,${mac}=`,
      `v1,${mac}AAAA`, // 35 bytes
      `v1,${mac.slice(0, 40)}`,
      `v1,${Buffer.from(mac, "base64").toString("base64url")}`,
      `v1,${mac},extra`,
      "v1,,,,",
      ",,,",
      "v1",
      "\u0000\u0001\u00ff",
      "v1,\u{1F600}",
      "v1,".padEnd(20_000, "A"),
    ];
    for (const signature of malformed) {
      const result = await verify(headersOf(ID, NOW, signature), [secret]);
      expect(result.ok, signature.slice(0, 40)).toBe(false);
    }
    // Non-canonical base64 (non-zero padding bits) decoding to the same bytes is not accepted.
    const last = mac.charAt(mac.length - 2);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const sibling = alphabet.charAt(alphabet.indexOf(last) ^ 1);
    const nonCanonical = `${mac.slice(0, -2)}${sibling}=`;
    expect(Buffer.from(nonCanonical, "base64").equals(Buffer.from(mac, "base64"))).toBe(true);
    expect(reasonOf(await verify(headersOf(ID, NOW, `v1,${nonCanonical}`), [secret]))).toBe("no_valid_signature");

    // Random garbage in every header never throws and never verifies.
    let seed = 12345;
    const nextByte = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % 256;
    };
    const garbage = (length: number) => String.fromCharCode(...Array.from({ length }, nextByte));
    for (let i = 0; i < 200; i++) {
      const headers = {
        "webhook-id": i % 3 === 0 ? ID : garbage(1 + (i % 40)),
        "webhook-timestamp": i % 3 === 1 ? String(NOW) : garbage(1 + (i % 12)),
        "webhook-signature": i % 2 === 0 ? `v1,${garbage(44)} ${garbage(i)}` : garbage(1 + i),
      };
      const result = await verify(headers, [secret], { body: garbage(i) });
      expect(result.ok).toBe(false);
    }
  });

  it("reports invalid_secret for a missing or malformed secret, before anything else", async () => {
    const secret = generateWebhookSecret();
    const headers = headersOf(ID, NOW, await signWebhook(secret, ID, NOW, BODY));
    expect(reasonOf(await verify(headers, []))).toBe("invalid_secret");
    for (const bad of ["", "whsec_", "whsec_not base64!", secret.slice(6), `whsec_${randomBytes(8).toString("base64")}`]) {
      expect(reasonOf(await verify(headers, [bad]))).toBe("invalid_secret");
      expect(reasonOf(await verify(headers, [secret, bad]))).toBe("invalid_secret");
      expect(reasonOf(await verify({}, [bad]))).toBe("invalid_secret");
    }
    const result = await verify(headers, ["whsec_!!"]);
    expect(result.ok ? "" : result.message).not.toContain("!!");
  });
});
