import { allRows, oneRow, run } from "./sql";

/**
 * Large binary values in a Durable Object's SQLite storage, split across rows: one row holds at
 * most 2 MB, and the routing index of 10,000 tools is about 8 MB. Each value carries its format
 * and a stamp (what it was built from); a reader that expects another format gets nothing and
 * rebuilds. Writes replace the whole value; callers run them inside the transaction of the change
 * that made them, so a stored value never disagrees with the rows it was built from.
 */

/** Bytes per row, well under the platform's 2 MB row limit. */
export const CHUNK_BYTES = 1 << 20;

export interface StoredBlob {
  bytes: Uint8Array;
  stamp: string;
}

export class StoredBlobs {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** The value stored under `name` in `format`; undefined when absent, of another format, or incomplete. */
  read(name: string, format: string): StoredBlob | undefined {
    const meta = oneRow<{ format: string; chunks: number; bytes: number; stamp: string }>(
      this.#sql,
      "SELECT format, chunks, bytes, stamp FROM stored_blobs WHERE name = ?",
      name,
    );
    if (meta === undefined || meta.format !== format) return undefined;
    const rows = allRows<{ seq: number; data: ArrayBuffer }>(this.#sql, "SELECT seq, data FROM stored_blob_chunks WHERE name = ? ORDER BY seq", name);
    if (rows.length !== meta.chunks) return undefined;
    const bytes = new Uint8Array(meta.bytes);
    let offset = 0;
    for (const row of rows) {
      const chunk = new Uint8Array(row.data);
      if (offset + chunk.byteLength > bytes.byteLength) return undefined;
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return offset === meta.bytes ? { bytes, stamp: meta.stamp } : undefined;
  }

  /**
   * `length` bytes of the value under `name` in `format` from byte `start`, read by SQLite out of
   * the chunks that hold them (the rest is not read); undefined when absent, of another format or
   * not that long.
   */
  readRange(name: string, format: string, start: number, length: number): StoredBlob | undefined {
    const meta = oneRow<{ format: string; bytes: number; stamp: string }>(this.#sql, "SELECT format, bytes, stamp FROM stored_blobs WHERE name = ?", name);
    if (meta === undefined || meta.format !== format || start < 0 || length < 0 || start + length > meta.bytes) return undefined;
    const bytes = new Uint8Array(length);
    for (let at = start; at < start + length; ) {
      const seq = Math.floor(at / CHUNK_BYTES);
      const within = at - seq * CHUNK_BYTES;
      const take = Math.min(CHUNK_BYTES - within, start + length - at);
      const row = oneRow<{ part: ArrayBuffer }>(
        this.#sql,
        "SELECT substr(data, ?, ?) AS part FROM stored_blob_chunks WHERE name = ? AND seq = ?",
        within + 1,
        take,
        name,
        seq,
      );
      if (row === undefined || row.part.byteLength !== take) return undefined;
      bytes.set(new Uint8Array(row.part), at - start);
      at += take;
    }
    return { bytes, stamp: meta.stamp };
  }

  /** The stamp of the value under `name` in `format`, without reading its bytes; undefined when absent or of another format. */
  stamp(name: string, format: string): string | undefined {
    const meta = oneRow<{ format: string; stamp: string }>(this.#sql, "SELECT format, stamp FROM stored_blobs WHERE name = ?", name);
    return meta === undefined || meta.format !== format ? undefined : meta.stamp;
  }

  /** Replaces the value under `name`. */
  write(name: string, format: string, bytes: Uint8Array, stamp: string): void {
    this.delete(name);
    let chunks = 0;
    for (let offset = 0; offset < bytes.byteLength; offset += CHUNK_BYTES) {
      const chunk = bytes.slice(offset, Math.min(offset + CHUNK_BYTES, bytes.byteLength));
      run(this.#sql, "INSERT INTO stored_blob_chunks (name, seq, data) VALUES (?, ?, ?)", name, chunks, chunk.buffer);
      chunks += 1;
    }
    run(this.#sql, "INSERT INTO stored_blobs (name, format, chunks, bytes, stamp) VALUES (?, ?, ?, ?, ?)", name, format, chunks, bytes.byteLength, stamp);
  }

  /** Replaces the stamp of the value under `name`, its bytes kept (what it was built from is found to be current). */
  setStamp(name: string, stamp: string): void {
    run(this.#sql, "UPDATE stored_blobs SET stamp = ? WHERE name = ?", stamp, name);
  }

  /** Relabels a stored value's format (tests: a value written by an older release). */
  setFormat(name: string, format: string): void {
    run(this.#sql, "UPDATE stored_blobs SET format = ? WHERE name = ?", format, name);
  }

  delete(name: string): void {
    run(this.#sql, "DELETE FROM stored_blob_chunks WHERE name = ?", name);
    run(this.#sql, "DELETE FROM stored_blobs WHERE name = ?", name);
  }
}
