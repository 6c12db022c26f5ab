import type { Store } from '../store/types.ts';
import type { Tokenizer } from '../text/tokenize.ts';
import type { Retriever } from './search.ts';

/**
 * What the agent and its tools may read: the store, the retriever and the tokenizer, nothing of the
 * service around them. Every read through it takes the run's scope. A `Dossier` is one.
 */
export interface Knowledge {
  readonly store: Store;
  readonly retriever: Retriever;
  readonly tokenizer: Tokenizer;
}
