import { DOT_I8_WASM_BASE64 } from './dot-i8-wasm.ts';

/**
 * Exact in-memory cosine search over int8-quantised vectors, scored by a WebAssembly SIMD kernel.
 *
 * Why: a flat float32 scan of 100k×256 vectors is memory-bound at ~14 ms in JS; int8 rows are a
 * quarter of the bytes and the SIMD kernel does 16 multiply-adds per load, which keeps hybrid
 * search within a few milliseconds at 100k chunks. Each row keeps its own scale (max-abs / 127), so
 * quantisation error stays well below the gaps that decide a ranking. The store keeps the float32
 * originals; this index is rebuilt from them when a process opens the store.
 */
const QUERY_BYTES_RESERVED = 64 * 1024; // int16 query (≤ 32k dims) at address 0
const PAGE = 64 * 1024;
const QUERY_MAX = 2047; // 11-bit query quantisation keeps int32 sums safe up to ~8k dimensions

interface Kernel {
  memory: WebAssembly.Memory;
  dotI8(rows: number, n: number, dim: number, query: number, out: number): void;
}

let compiled: WebAssembly.Module | undefined;
function instantiate(): Kernel {
  compiled ??= new WebAssembly.Module(Buffer.from(DOT_I8_WASM_BASE64, 'base64'));
  return new WebAssembly.Instance(compiled).exports as unknown as Kernel;
}

export interface VectorRowTag {
  documentId: number;
  collectionId: number;
}

export interface VectorMatch {
  id: number;
  documentId: number;
  score: number;
}

/** A vector as int8 values times one scale (max-abs / 127): a quarter of the bytes, ranking intact. */
export interface QuantizedVector {
  values: Int8Array;
  scale: number;
}

export function quantize(vector: Float32Array): QuantizedVector {
  let maxAbs = 0;
  for (let i = 0; i < vector.length; i++) {
    const value = vector[i] < 0 ? -vector[i] : vector[i];
    if (value > maxAbs) maxAbs = value;
  }
  const scale = maxAbs > 0 ? maxAbs / 127 : 1;
  const inverse = 1 / scale;
  const values = new Int8Array(vector.length);
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i] * inverse;
    values[i] = x >= 0 ? (x + 0.5) | 0 : -((0.5 - x) | 0); // round half away from zero, without Math.round's cost
  }
  return { values, scale };
}

export class Int8VectorIndex {
  readonly dimensions: number;
  /** Row width padded to the kernel's 16-byte step. */
  private readonly stride: number;
  private readonly kernel = instantiate();
  private capacity = 0;
  private count = 0;
  private ids = new Float64Array(0);
  private scales = new Float32Array(0);
  private documentIds = new Int32Array(0);
  private collectionIds = new Int32Array(0);
  private readonly slotOf = new Map<number, number>();
  private bytes = new Int8Array(0);

  constructor(dimensions: number, expectedRows = 1024) {
    if (!Number.isInteger(dimensions) || dimensions <= 0 || dimensions > 16_384) {
      throw new Error(`vector dimensions must be an integer from 1 to 16384, got ${dimensions}`);
    }
    this.dimensions = dimensions;
    this.stride = Math.ceil(dimensions / 16) * 16;
    this.reserve(Math.max(1024, expectedRows));
  }

  get size(): number {
    return this.count;
  }

  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  upsert(id: number, vector: Float32Array, tag: VectorRowTag): void {
    this.upsertQuantized(id, quantize(vector), tag);
  }

  /** Adds a row already quantised by `quantize` (stores keep these, so opening an index is a copy). */
  upsertQuantized(id: number, row: QuantizedVector, tag: VectorRowTag): void {
    if (row.values.length !== this.dimensions) {
      throw new Error(`vector has ${row.values.length} dimensions, the index has ${this.dimensions}`);
    }
    let slot = this.slotOf.get(id);
    if (slot === undefined) {
      if (this.count === this.capacity) this.reserve(this.capacity * 2);
      slot = this.count++;
      this.slotOf.set(id, slot);
    }
    const base = this.rowsAddress + slot * this.stride;
    this.bytes.set(row.values, base); // one view over all of memory, re-made when memory grows (reserve)
    if (this.stride > this.dimensions) this.bytes.fill(0, base + this.dimensions, base + this.stride);
    this.ids[slot] = id;
    this.scales[slot] = row.scale;
    this.documentIds[slot] = tag.documentId;
    this.collectionIds[slot] = tag.collectionId;
  }

  remove(id: number): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    const last = --this.count;
    if (slot !== last) {
      // Move the last row into the hole so rows stay dense for the kernel.
      const bytes = new Uint8Array(this.kernel.memory.buffer);
      bytes.copyWithin(
        this.rowsAddress + slot * this.stride,
        this.rowsAddress + last * this.stride,
        this.rowsAddress + (last + 1) * this.stride,
      );
      this.ids[slot] = this.ids[last];
      this.scales[slot] = this.scales[last];
      this.documentIds[slot] = this.documentIds[last];
      this.collectionIds[slot] = this.collectionIds[last];
      this.slotOf.set(this.ids[slot], slot);
    }
    this.slotOf.delete(id);
    return true;
  }

  /**
   * The k rows with the highest cosine similarity (vectors are expected L2-normalised) among rows
   * whose tag passes `accept`. Ties keep insertion order stable enough for tests; scores are approximate
   * to about 1e-2.
   */
  search(query: Float32Array, k: number, accept?: (tag: VectorRowTag) => boolean): VectorMatch[] {
    if (query.length !== this.dimensions) {
      throw new Error(`query vector has ${query.length} dimensions, the index has ${this.dimensions}`);
    }
    if (this.count === 0 || k <= 0) return [];
    let maxAbs = 0;
    for (let i = 0; i < query.length; i++) maxAbs = Math.max(maxAbs, Math.abs(query[i]));
    if (maxAbs === 0) return [];
    const queryScale = maxAbs / QUERY_MAX;
    const buffer = this.kernel.memory.buffer;
    const quantised = new Int16Array(buffer, 0, this.stride);
    quantised.fill(0);
    for (let i = 0; i < query.length; i++) quantised[i] = Math.round(query[i] / queryScale);
    this.kernel.dotI8(this.rowsAddress, this.count, this.stride, 0, this.scoresAddress);
    const raw = new Int32Array(this.kernel.memory.buffer, this.scoresAddress, this.count);
    return this.topK(raw, queryScale, k, accept);
  }

  private topK(raw: Int32Array, queryScale: number, k: number, accept?: (tag: VectorRowTag) => boolean): VectorMatch[] {
    // Min-heap of the best k (score, slot) pairs seen so far.
    const heapScores = new Float64Array(k);
    const heapSlots = new Int32Array(k);
    let size = 0;
    const tag: VectorRowTag = { documentId: 0, collectionId: 0 };
    for (let slot = 0; slot < this.count; slot++) {
      const score = raw[slot] * this.scales[slot] * queryScale;
      if (size === k && score <= heapScores[0]) continue;
      if (accept) {
        tag.documentId = this.documentIds[slot];
        tag.collectionId = this.collectionIds[slot];
        if (!accept(tag)) continue;
      }
      if (size < k) {
        let i = size++;
        while (i > 0) {
          const parent = (i - 1) >> 1;
          if (heapScores[parent] <= score) break;
          heapScores[i] = heapScores[parent];
          heapSlots[i] = heapSlots[parent];
          i = parent;
        }
        heapScores[i] = score;
        heapSlots[i] = slot;
      } else {
        let i = 0;
        for (;;) {
          const left = 2 * i + 1;
          if (left >= size) break;
          const right = left + 1;
          const child = right < size && heapScores[right] < heapScores[left] ? right : left;
          if (heapScores[child] >= score) break;
          heapScores[i] = heapScores[child];
          heapSlots[i] = heapSlots[child];
          i = child;
        }
        heapScores[i] = score;
        heapSlots[i] = slot;
      }
    }
    const out: VectorMatch[] = [];
    for (let i = 0; i < size; i++)
      out.push({ id: this.ids[heapSlots[i]], documentId: this.documentIds[heapSlots[i]], score: heapScores[i] });
    return out.sort((a, b) => b.score - a.score || a.id - b.id);
  }

  private get rowsAddress(): number {
    return QUERY_BYTES_RESERVED;
  }

  private get scoresAddress(): number {
    return QUERY_BYTES_RESERVED + this.capacity * this.stride;
  }

  private reserve(capacity: number): void {
    const needed = QUERY_BYTES_RESERVED + capacity * this.stride + capacity * 4;
    const memory = this.kernel.memory;
    if (needed > memory.buffer.byteLength) memory.grow(Math.ceil((needed - memory.buffer.byteLength) / PAGE));
    this.bytes = new Int8Array(memory.buffer);
    this.capacity = capacity;
    this.ids = grow(this.ids, capacity);
    this.scales = grow(this.scales, capacity);
    this.documentIds = grow(this.documentIds, capacity);
    this.collectionIds = grow(this.collectionIds, capacity);
  }
}

function grow<T extends Float64Array | Float32Array | Int32Array>(array: T, length: number): T {
  if (array.length >= length) return array;
  const next = new (array.constructor as new (n: number) => T)(length);
  next.set(array);
  return next;
}
