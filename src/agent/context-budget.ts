import type { ModelMessage } from 'ai';
import { FENCE_CLOSE, FENCE_OPEN, defuse, defuseAttribute, parseEvidence } from '../evidence/evidence-format.ts';
import type { LedgerEntry } from '../evidence/ledger.ts';
import { countTokens } from '../text/tokenize.ts';

/** What compaction needs of the run's ledger: the full entry behind an id, and forgetting that it was shown. */
export interface CompactionLedger {
  get(id: string): LedgerEntry | undefined;
  /** The passage is no longer in the transcript: a later result shows it again instead of referring to it. */
  markUnshown(id: string): void;
}

/** Words of a passage's text on its one line. */
const LINE_WORDS = 12;
const BLOCK = new RegExp(`${FENCE_OPEN} [^\\n]*\\n[\\s\\S]*?\\n${FENCE_CLOSE}`, 'g');
export const COMPACTED_NOTE =
  '[compacted to stay within the context budget: each passage shown here is one line now; cite it by its id as before, and read it again with get_content documentId=… from=… (its address, beside the id)]';

/** The text of a tool-result message, whichever protocol appended it (`tool` parts, or one `user` string). */
function textsOf(message: ModelMessage): string[] {
  if (message.role === 'tool')
    return message.content.flatMap((part) =>
      part.type === 'tool-result' && (part.output.type === 'text' || part.output.type === 'error-text') ? [part.output.value] : [],
    );
  return message.role === 'user' && typeof message.content === 'string' ? [message.content] : [];
}

function mapTexts(message: ModelMessage, map: (text: string) => string): ModelMessage {
  if (message.role === 'tool')
    return {
      ...message,
      content: message.content.map((part) =>
        part.type === 'tool-result' && (part.output.type === 'text' || part.output.type === 'error-text')
          ? { ...part, output: { ...part.output, value: map(part.output.value) } }
          : part,
      ),
    };
  return message.role === 'user' && typeof message.content === 'string' ? { ...message, content: map(message.content) } : message;
}

export function messageTokens(message: ModelMessage): number {
  return textsOf(message).reduce((sum, text) => sum + countTokens(text), 0);
}

/**
 * One line for an evidence block: its id, its address, where it is and its first words (from the
 * ledger's full text when it holds the entry, else from the block as shown):
 *   E3 documentId=30 chunk=5 "Staff directory" › Teams › Coastal Team: Marit Halvorsen leads the…
 */
function evidenceLine(block: string, ledger: CompactionLedger): string {
  const [parsed] = parseEvidence(block);
  if (!parsed) return block;
  const entry = ledger.get(parsed.id);
  const chunk = entry?.chunk;
  const documentId = chunk ? (chunk.id >= 0 ? chunk.documentId : undefined) : parsed.documentId;
  const ordinal = chunk ? chunk.ordinal : parsed.ordinal;
  const address = documentId !== undefined && ordinal !== undefined ? ` documentId=${documentId} chunk=${ordinal}` : '';
  const title = defuseAttribute(chunk?.title ?? parsed.title);
  const headings = chunk?.headingPath ?? parsed.headingPath;
  // A heading path often starts with the title: said once.
  const at = (headings[0] === (chunk?.title ?? parsed.title) ? headings.slice(1) : headings).map(defuseAttribute).join(' › ');
  const words = (chunk?.text ?? parsed.text).split(/\s+/).filter(Boolean);
  const lead = defuse(words.slice(0, LINE_WORDS).join(' ')) + (words.length > LINE_WORDS ? '…' : '');
  return `${parsed.id}${address} "${title}"${at ? ` › ${at}` : ''}${lead ? `: ${lead}` : ''}`;
}

/** A tool result's text with each evidence block made one line (and the note said once); other text is kept. */
export function compactResultText(text: string, ledger: CompactionLedger): string {
  let noted = false;
  return text.replace(BLOCK, (block) => {
    for (const parsed of parseEvidence(block)) ledger.markUnshown(parsed.id);
    const line = evidenceLine(block, ledger);
    if (noted) return line;
    noted = true;
    return `${COMPACTED_NOTE}\n${line}`;
  });
}

export interface CompactionOutcome {
  /** Tool-result messages compacted by this call. */
  compacted: number;
  /** Tokens of the transcript's tool results, before and after. */
  before: number;
  after: number;
}

/**
 * Keeps the tool results of a transcript within a token budget: while they pass it, the oldest
 * result not yet compacted has each evidence block replaced by one line (its id, address, title,
 * heading path and first words), in place. The newest round of results is never compacted. The
 * ledger keeps every passage whole, so citations of compacted evidence still resolve; a compacted
 * passage counts as not shown, so a later search or `get_content` shows it again.
 *
 * `results` are the indexes in `messages` of the tool-result messages, oldest first; `compacted`
 * is the set of those already compacted (updated here).
 */
export function compactTranscript(
  messages: ModelMessage[],
  results: readonly number[],
  compacted: Set<number>,
  budgetTokens: number,
  ledger: CompactionLedger,
): CompactionOutcome {
  const tokens = new Map(results.map((at) => [at, messageTokens(messages[at])]));
  const total = () => [...tokens.values()].reduce((sum, n) => sum + n, 0);
  const before = total();
  let count = 0;
  for (const at of results.slice(0, -1)) {
    if (total() <= budgetTokens) break;
    if (compacted.has(at)) continue;
    messages[at] = mapTexts(messages[at], (text) => compactResultText(text, ledger));
    compacted.add(at);
    tokens.set(at, messageTokens(messages[at]));
    count++;
  }
  return { compacted: count, before, after: total() };
}
