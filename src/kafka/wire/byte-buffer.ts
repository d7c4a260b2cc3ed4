/** A primitive could not be read: the bytes end early or hold an impossible value. */
export class WireFormatError extends Error {
  override readonly name = "WireFormatError";
}

const TWO_32 = 0x1_0000_0000;

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

/** Bound on cached string encodings (topic names and client ids repeat; anything else is encoded afresh). */
const MAX_CACHED_STRINGS = 1_000;
const encodedStrings = new Map<string, Uint8Array>();

/** UTF-8 bytes of `s`, cached: callers copy them into their buffer and never change them. */
function utf8(s: string): Uint8Array {
  let bytes = encodedStrings.get(s);
  if (bytes === undefined) {
    bytes = utf8Encoder.encode(s);
    if (encodedStrings.size < MAX_CACHED_STRINGS) encodedStrings.set(s, bytes);
  }
  return bytes;
}

/** Bytes `from` to `to` as text, by the strict UTF-8 decoder (malformed bytes are a WireFormatError). */
function decodeUtf8(data: Uint8Array, from: number, to: number): string {
  try {
    return utf8Decoder.decode(data.subarray(from, to));
  } catch {
    throw new WireFormatError(`string: invalid UTF-8 at offset ${from}`);
  }
}

/**
 * Messages are cut from shared arenas: each encoded message is a view on an arena, not a buffer of
 * its own. V8 allocates a typed array over 64 bytes outside the JS heap, at about 0.5 µs each; a
 * view costs a tenth of that. An arena is freed by the garbage collector with its last view.
 */
const ARENA_BYTES = 64 * 1024;
let arena = new Uint8Array(ARENA_BYTES);
let arenaUsed = 0;

/** Copy bytes [0, length) of `from` into an arena and return the view on them. */
function cutFromArena(from: Uint8Array, length: number): Uint8Array {
  if (length > ARENA_BYTES / 8) return from.slice(0, length);
  if (arenaUsed + length > ARENA_BYTES) {
    arena = new Uint8Array(ARENA_BYTES);
    arenaUsed = 0;
  }
  const start = arenaUsed;
  arena.set(from.subarray(0, length), start);
  arenaUsed += length;
  return arena.subarray(start, start + length);
}

/** The scratch buffer of `ByteWriter.encode` (null while an encoding holds it). */
let freeScratch: Uint8Array | null = new Uint8Array(1024);

/** Big-endian writer for Kafka's primitive types (flexible-version compact forms included). */
export class ByteWriter {
  private buffer: Uint8Array;
  private length = 0;

  constructor(buffer: Uint8Array = new Uint8Array(64)) {
    this.buffer = buffer;
  }

  /**
   * Encode one message into the shared scratch buffer and return its bytes cut from an arena. The
   * result is immutable by convention (it shares its ArrayBuffer with other messages).
   */
  static encode(write: (w: ByteWriter) => void): Uint8Array {
    const scratch = freeScratch;
    freeScratch = null;
    const w = new ByteWriter(scratch ?? new Uint8Array(64));
    try {
      write(w);
      return cutFromArena(w.buffer, w.length);
    } finally {
      // The scratch goes back, grown if this message outgrew it (unless another encoding holds it).
      if (scratch !== null) freeScratch = w.buffer;
    }
  }

  private ensure(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.length + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buffer.subarray(0, this.length));
    this.buffer = next;
  }

  int8(v: number): this {
    this.ensure(1);
    this.buffer[this.length++] = v & 0xff;
    return this;
  }

  bool(v: boolean): this {
    return this.int8(v ? 1 : 0);
  }

  int16(v: number): this {
    this.ensure(2);
    const b = this.buffer;
    b[this.length] = (v >> 8) & 0xff;
    b[this.length + 1] = v & 0xff;
    this.length += 2;
    return this;
  }

  int32(v: number): this {
    this.ensure(4);
    this.putInt32(v);
    return this;
  }

  /** Four bytes, big-endian, of the low 32 bits of v (the caller ensured the room). */
  private putInt32(v: number): void {
    const b = this.buffer;
    const at = this.length;
    b[at] = (v >>> 24) & 0xff;
    b[at + 1] = (v >>> 16) & 0xff;
    b[at + 2] = (v >>> 8) & 0xff;
    b[at + 3] = v & 0xff;
    this.length = at + 4;
  }

  /** int64 from a JS number (exact up to 2^53; producer ids stay far below). */
  int64(v: number): this {
    if (!Number.isSafeInteger(v)) throw new WireFormatError(`int64 out of safe range: ${v}`);
    const hi = Math.floor(v / TWO_32);
    const lo = v - hi * TWO_32;
    this.ensure(8);
    this.putInt32(hi);
    this.putInt32(lo);
    return this;
  }

  uvarint(v: number): this {
    if (!(v >= 0 && v <= 0xffffffff && Number.isInteger(v))) throw new WireFormatError(`uvarint out of range: ${v}`);
    let x = v;
    while (x >= 0x80) {
      this.int8Unsigned((x & 0x7f) | 0x80);
      x = Math.floor(x / 128);
    }
    return this.int8Unsigned(x);
  }

  private int8Unsigned(v: number): this {
    this.ensure(1);
    this.buffer[this.length++] = v;
    return this;
  }

  /** COMPACT_STRING: uvarint(length + 1) then UTF-8 bytes. */
  compactString(s: string): this {
    const bytes = utf8(s);
    this.uvarint(bytes.length + 1);
    this.ensure(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
    return this;
  }

  /** NULLABLE_STRING (non-compact, int16 length), used by request header v2's client id. */
  nullableString(s: string | null): this {
    if (s === null) return this.int16(-1);
    const bytes = utf8(s);
    this.int16(bytes.length);
    this.ensure(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
    return this;
  }

  /** COMPACT_ARRAY: uvarint(count + 1) then the elements. */
  compactArray<T>(items: readonly T[], write: (item: T) => void): this {
    this.uvarint(items.length + 1);
    for (const item of items) write(item);
    return this;
  }

  /** An empty tagged-field section (count 0). */
  emptyTaggedFields(): this {
    return this.uvarint(0);
  }

  bytes(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }
}

/** Big-endian reader; every read checks bounds and throws WireFormatError instead of reading garbage. */
export class ByteReader {
  private offset = 0;

  constructor(private readonly data: Uint8Array) {}

  /** Four bytes big-endian at `at` as a signed 32-bit integer (bounds checked by the caller). */
  private int32At(at: number): number {
    const d = this.data;
    return (
      ((d[at] as number) << 24) | ((d[at + 1] as number) << 16) | ((d[at + 2] as number) << 8) | (d[at + 3] as number)
    );
  }

  get remaining(): number {
    return this.data.length - this.offset;
  }

  private need(n: number, what: string): void {
    if (this.offset + n > this.data.length)
      throw new WireFormatError(`${what}: needs ${n} bytes at offset ${this.offset}, ${this.remaining} left`);
  }

  int8(): number {
    this.need(1, "int8");
    return ((this.data[this.offset++] as number) << 24) >> 24;
  }

  bool(): boolean {
    const v = this.int8();
    if (v !== 0 && v !== 1) throw new WireFormatError(`bool: invalid value ${v}`);
    return v === 1;
  }

  int16(): number {
    this.need(2, "int16");
    const v = ((((this.data[this.offset] as number) << 8) | (this.data[this.offset + 1] as number)) << 16) >> 16;
    this.offset += 2;
    return v;
  }

  int32(): number {
    this.need(4, "int32");
    const v = this.int32At(this.offset);
    this.offset += 4;
    return v;
  }

  int64(): number {
    this.need(8, "int64");
    const hi = this.int32At(this.offset);
    const lo = this.int32At(this.offset + 4) >>> 0;
    this.offset += 8;
    const v = hi * TWO_32 + lo;
    if (!Number.isSafeInteger(v)) throw new WireFormatError(`int64 beyond 2^53: hi=${hi}`);
    return v;
  }

  uvarint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 5; i++) {
      this.need(1, "uvarint");
      const b = this.data[this.offset++] as number;
      value += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return value;
      scale *= 128;
    }
    throw new WireFormatError("uvarint longer than 5 bytes");
  }

  compactString(): string {
    const n = this.uvarint();
    if (n === 0) throw new WireFormatError("compact string: null where a string is required");
    this.need(n - 1, "compact string");
    const s = decodeUtf8(this.data, this.offset, this.offset + n - 1);
    this.offset += n - 1;
    return s;
  }

  nullableString(): string | null {
    const n = this.int16();
    if (n < 0) return null;
    this.need(n, "string");
    const s = decodeUtf8(this.data, this.offset, this.offset + n);
    this.offset += n;
    return s;
  }

  /** COMPACT_ARRAY with a sanity bound so garbage cannot make us allocate millions of elements. */
  compactArray<T>(read: () => T, maxItems = 100_000): T[] {
    const n = this.uvarint();
    if (n === 0) throw new WireFormatError("compact array: null where an array is required");
    if (n - 1 > maxItems) throw new WireFormatError(`compact array: ${n - 1} items exceeds bound ${maxItems}`);
    const items: T[] = [];
    for (let i = 0; i < n - 1; i++) items.push(read());
    return items;
  }

  /** Skip a tagged-field section: unknown tags are ignorable by definition. */
  taggedFields(): void {
    const count = this.uvarint();
    for (let i = 0; i < count; i++) {
      this.uvarint();
      const size = this.uvarint();
      this.need(size, "tagged field");
      this.offset += size;
    }
  }

  expectEnd(what: string): void {
    if (this.remaining !== 0) throw new WireFormatError(`${what}: ${this.remaining} trailing bytes`);
  }
}
