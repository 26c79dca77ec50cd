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
   * `length` bytes of the value under `name` in `format` from byte `start`, read out of the chunks
   * that hold them (the rest is not read), in one query; undefined when absent, of another format
   * or not that long. `chunkBytes` must be what the value was written with: a chunk is read whole,
   * so values read by ranges are written in small chunks (a format written so names its chunk size).
   */
  readRange(name: string, format: string, start: number, length: number, chunkBytes = CHUNK_BYTES): StoredBlob | undefined {
    const meta = oneRow<{ format: string; bytes: number; stamp: string }>(this.#sql, "SELECT format, bytes, stamp FROM stored_blobs WHERE name = ?", name);
    if (meta === undefined || meta.format !== format || start < 0 || length < 0 || start + length > meta.bytes) return undefined;
    const bytes = new Uint8Array(length);
    if (length === 0) return { bytes, stamp: meta.stamp };
    // One query for the chunks that hold the range, whole; the ends are cut here.
    const first = Math.floor(start / chunkBytes);
    const last = Math.floor((start + length - 1) / chunkBytes);
    const rows = allRows<{ seq: number; data: ArrayBuffer }>(
      this.#sql,
      "SELECT seq, data FROM stored_blob_chunks WHERE name = ? AND seq BETWEEN ? AND ? ORDER BY seq",
      name,
      first,
      last,
    );
    if (rows.length !== last - first + 1) return undefined;
    for (const row of rows) {
      const chunkStart = row.seq * chunkBytes;
      const from = Math.max(start, chunkStart);
      const to = Math.min(start + length, chunkStart + row.data.byteLength);
      if (to <= from) return undefined;
      bytes.set(new Uint8Array(row.data, from - chunkStart, to - from), from - start);
    }
    return { bytes, stamp: meta.stamp };
  }

  /** The stamp of the value under `name` in `format`, without reading its bytes; undefined when absent or of another format. */
  stamp(name: string, format: string): string | undefined {
    const meta = oneRow<{ format: string; stamp: string }>(this.#sql, "SELECT format, stamp FROM stored_blobs WHERE name = ?", name);
    return meta === undefined || meta.format !== format ? undefined : meta.stamp;
  }

  /** Replaces the value under `name`, in chunks of `chunkBytes` (at most CHUNK_BYTES; see readRange). */
  write(name: string, format: string, bytes: Uint8Array, stamp: string, chunkBytes = CHUNK_BYTES): void {
    this.delete(name);
    let chunks = 0;
    for (let offset = 0; offset < bytes.byteLength; offset += chunkBytes) {
      const chunk = bytes.slice(offset, Math.min(offset + chunkBytes, bytes.byteLength));
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
