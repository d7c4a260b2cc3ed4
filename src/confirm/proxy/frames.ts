/**
 * Kafka's framing: every request and response is a 4-byte big-endian size, then that many bytes.
 * A FrameReader takes the bytes of one direction of a connection as they come and hands out whole
 * frames (without the size prefix).
 */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);

  /** Bound on one frame: Kafka's default socket.request.max.bytes (100 MiB). */
  static readonly MAX_FRAME = 104_857_600;

  push(chunk: Buffer): Buffer[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const frames: Buffer[] = [];
    while (this.buffered.length >= 4) {
      const size = this.buffered.readInt32BE(0);
      if (size < 0 || size > FrameReader.MAX_FRAME) throw new Error(`a Kafka frame of ${size} bytes`);
      if (this.buffered.length < 4 + size) break;
      frames.push(this.buffered.subarray(4, 4 + size));
      this.buffered = this.buffered.subarray(4 + size);
    }
    return frames;
  }
}

/** A frame ready for the wire: size prefix and body. */
export function framed(body: Uint8Array): Buffer {
  const out = Buffer.alloc(4 + body.length);
  out.writeInt32BE(body.length, 0);
  out.set(body, 4);
  return out;
}
