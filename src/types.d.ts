declare module 'snowball-stemmers' {
  const snowball: { newStemmer(language: string): { stem(word: string): string }; algorithms(): string[] };
  export default snowball;
}

// @types/node 20 ships no WebAssembly typings; this is the small part the vector kernel uses.
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Instance {
    constructor(module: Module, imports?: object);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    readonly buffer: ArrayBuffer;
    grow(pages: number): number;
  }
}
