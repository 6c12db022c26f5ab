/**
 * Deterministic synthetic English-like text for benchmarks: Zipf-distributed words from a generated
 * vocabulary, sentences of 8–24 words, paragraphs of 3–7 sentences. Not real language, but it has
 * the term-frequency shape that drives posting-list sizes and so search cost.
 */
export class SyntheticText {
  private state: number;
  readonly vocabulary: string[];
  private readonly cumulative: Float64Array;

  constructor(seed = 42, vocabularySize = 50_000) {
    this.state = seed >>> 0 || 1;
    const syllables = ['ka', 'lo', 'mi', 'ren', 'tor', 'sal', 'vin', 'qua', 'dre', 'pol', 'us', 'ex', 'an', 'ter', 'bio', 'gen', 'cell', 'ment', 'ion', 'ly'];
    const words = new Set<string>();
    while (words.size < vocabularySize) {
      const length = 1 + Math.floor(this.random() * 4);
      let word = '';
      for (let i = 0; i < length; i++) word += syllables[Math.floor(this.random() * syllables.length)];
      words.add(word);
    }
    this.vocabulary = [...words];
    this.cumulative = new Float64Array(vocabularySize);
    let sum = 0;
    for (let i = 0; i < vocabularySize; i++) {
      sum += 1 / (i + 1) ** 1.07;
      this.cumulative[i] = sum;
    }
    for (let i = 0; i < vocabularySize; i++) this.cumulative[i] /= sum;
  }

  random(): number {
    // xorshift32: fast and reproducible across runs.
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 0x100000000;
  }

  word(): string {
    const r = this.random();
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid] < r) lo = mid + 1;
      else hi = mid;
    }
    return this.vocabulary[lo];
  }

  sentence(): string {
    const count = 8 + Math.floor(this.random() * 17);
    const words = Array.from({ length: count }, () => this.word());
    words[0] = words[0][0].toUpperCase() + words[0].slice(1);
    return `${words.join(' ')}.`;
  }

  paragraph(): string {
    return Array.from({ length: 3 + Math.floor(this.random() * 5) }, () => this.sentence()).join(' ');
  }

  /** A query of 2–6 words, drawn from the middle of the frequency range like real keyword queries. */
  query(): string {
    const count = 2 + Math.floor(this.random() * 5);
    return Array.from({ length: count }, () => this.vocabulary[50 + Math.floor(this.random() * 5000)]).join(' ');
  }
}

export function argValue(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  if (index === -1) return fallback;
  const value = Number(process.argv[index + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
  return value;
}
