// Held-out hygiene: HotpotQA questions 100–499 (lines 101–500 of hotpotqa/dev-500.jsonl in the shared
// data) are held out. Their texts may not appear in code, tests, comments, docs or development sets,
// and no golden output may be recorded for one. A constructed test or an invented example stands in
// where a rule needs one. This test holds no held-out text itself: it reads the questions from the
// data file and names a hit by its line number and id only, so the failure output holds none either.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { configFromEnv } from '../src/config/index.ts';

const REPO_ROOT = resolve(import.meta.dirname, '..');
const DATA_FILE = join(configFromEnv().dataDir, 'hotpotqa/dev-500.jsonl');
/** Questions 0–99 are the development part; the rest are held out. */
const DEVELOPMENT = 100;
/** A run of this many words of a held-out question, found nowhere in a development question, counts as the question. */
const RUN = 10;
/** What is searched: the repository's text outside the golden outputs (checked for ids below). */
const SEARCHED = ['src/', 'test/', 'eval/', 'bench/', 'docs/', 'scripts/'];
const SEARCHED_FILES = ['README.md', 'CHANGELOG.md'];
const NOT_SEARCHED = ['eval/golden/'];

interface Question {
  line: number;
  id: string;
  words: string[];
}

/** Lower case, one form of quotes and dashes, `\uXXXX` escapes read (JSON files), then the words alone: whitespace, case and punctuation do not hide a copy. */
function wordsOf(text: string): string[] {
  const plain = text
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .normalize('NFKC')
    .toLowerCase();
  return plain.match(/[\p{L}\p{N}]+/gu) ?? [];
}

function readQuestions(): Question[] {
  return readFileSync(DATA_FILE, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line, index) => {
      const record = JSON.parse(line) as { question_id: string; question_text: string };
      return { line: index + 1, id: record.question_id, words: wordsOf(record.question_text) };
    });
}

/** The files git knows or would add (tracked, or untracked and not ignored), by path from the checkout. */
function repositoryFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...new Set(out.split('\0').filter(Boolean))];
}

/** A file's text, or undefined when it is gone from the working tree or is binary. */
function textOf(path: string): string | undefined {
  const full = join(REPO_ROOT, path);
  if (!existsSync(full)) return undefined;
  const bytes = readFileSync(full);
  if (bytes.includes(0)) return undefined;
  return bytes.toString('utf8');
}

/** Every contiguous run of `n` words, joined by single spaces. */
function runsOf(words: string[], n: number): string[] {
  const runs: string[] = [];
  for (let i = 0; i + n <= words.length; i++) runs.push(words.slice(i, i + n).join(' '));
  return runs;
}

/**
 * The phrases that give a held-out question away: the whole question, and each run of RUN words of it,
 * unless a development question holds the same words (a shared "Who was born first" is no leak).
 * Keyed by their first two words, so one pass over a file's words finds them all.
 */
function phrasesOf(
  development: Question[],
  heldOut: Question[],
): Map<string, Array<{ words: string[]; question: Question; whole: boolean }>> {
  const developmentText = development.map((q) => ` ${q.words.join(' ')} `);
  const inDevelopment = (words: string[]) => developmentText.some((text) => text.includes(` ${words.join(' ')} `));
  const byStart = new Map<string, Array<{ words: string[]; question: Question; whole: boolean }>>();
  const add = (words: string[], question: Question, whole: boolean) => {
    if (words.length < 2 || inDevelopment(words)) return;
    const key = `${words[0]} ${words[1]}`;
    const list = byStart.get(key) ?? [];
    list.push({ words, question, whole });
    byStart.set(key, list);
  };
  for (const question of heldOut) {
    add(question.words, question, true);
    for (const run of runsOf(question.words, RUN)) add(run.split(' '), question, false);
  }
  return byStart;
}

const dataMissing = existsSync(DATA_FILE) ? false : `the HotpotQA data ${DATA_FILE} is absent (set DOSSIER_DATA_DIR)`;
const gitMissing = (() => {
  try {
    execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: REPO_ROOT, stdio: 'ignore' });
    return false;
  } catch {
    return `${REPO_ROOT} is not a git checkout, so its files cannot be listed`;
  }
})();
const skip = dataMissing || gitMissing;

describe('held-out hygiene: HotpotQA questions 100–499', () => {
  it('no held-out question, whole or as a distinctive run of words, in code, tests, comments, docs or development sets', { skip }, () => {
    const questions = readQuestions();
    assert.ok(questions.length > DEVELOPMENT, `${DATA_FILE} holds ${questions.length} questions, expected more than ${DEVELOPMENT}`);
    const byStart = phrasesOf(questions.slice(0, DEVELOPMENT), questions.slice(DEVELOPMENT));
    const searched = repositoryFiles().filter(
      (path) =>
        (SEARCHED.some((dir) => path.startsWith(dir)) || SEARCHED_FILES.includes(path)) &&
        !NOT_SEARCHED.some((dir) => path.startsWith(dir)),
    );
    assert.ok(searched.length > 50, `only ${searched.length} files found to search`);
    const found = new Set<string>();
    for (const path of searched) {
      const text = textOf(path);
      if (text === undefined) continue;
      const words = wordsOf(text);
      for (let i = 0; i + 1 < words.length; i++) {
        const candidates = byStart.get(`${words[i]} ${words[i + 1]}`);
        if (!candidates) continue;
        for (const { words: phrase, question, whole } of candidates) {
          if (i + phrase.length > words.length) continue;
          let same = true;
          for (let k = 2; k < phrase.length && same; k++) same = words[i + k] === phrase[k];
          if (same)
            found.add(
              `${path}: held-out question at line ${question.line} of hotpotqa/dev-500.jsonl (question ${question.line - 1}, id ${question.id}), ${whole ? 'the whole question' : `a run of ${RUN} of its words`}`,
            );
        }
      }
    }
    assert.deepEqual([...found].sort(), [], 'held-out questions must not appear: replace each with a constructed example');
  });

  it('no golden output recorded for a held-out question', { skip: dataMissing }, () => {
    const heldOut = new Map(
      readQuestions()
        .slice(DEVELOPMENT)
        .map((q) => [q.id, q.line]),
    );
    const goldenDir = join(REPO_ROOT, 'eval/golden');
    const files = existsSync(goldenDir)
      ? readdirSync(goldenDir)
          .filter((name) => name.endsWith('.jsonl'))
          .sort()
      : [];
    assert.ok(files.length > 0, 'no golden .jsonl files found in eval/golden/');
    const found: string[] = [];
    for (const name of files) {
      readFileSync(join(goldenDir, name), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (!line.trim()) return;
          const { id } = JSON.parse(line) as { id?: unknown };
          if (typeof id === 'string' && heldOut.has(id))
            found.push(`eval/golden/${name}:${index + 1}: id ${id} is held-out question ${heldOut.get(id)! - 1} (line ${heldOut.get(id)})`);
        });
    }
    assert.deepEqual(found, [], 'golden outputs hold development answers only');
  });
});

/** The held-out documentation sets: their question texts may be read from their files only, never written into code or tests. */
const HELD_OUT_DOCS_SETS = ['eval/docs-heldout-uvicorn/questions.json', 'eval/docs-heldout/questions.json'];
const CODE_DIRS = ['src/', 'test/', 'scripts/', 'bench/'];
/** A run of this many words of a held-out docs question counts as the question (they are short). */
const DOCS_RUN = 8;

describe('held-out hygiene: the held-out documentation sets', () => {
  it('no held-out docs question, whole or as a run of words, in code or tests', { skip: gitMissing }, () => {
    const questions = HELD_OUT_DOCS_SETS.flatMap((set) =>
      (JSON.parse(readFileSync(join(REPO_ROOT, set), 'utf8')) as { id: string; question: string }[]).map((q) => ({
        set,
        id: q.id,
        words: wordsOf(q.question),
      })),
    );
    assert.ok(questions.length >= 60, `only ${questions.length} held-out docs questions read`);
    const phrases = questions.flatMap((q) =>
      (q.words.length <= DOCS_RUN ? [q.words.join(' ')] : runsOf(q.words, DOCS_RUN)).map((phrase) => ({ phrase, q })),
    );
    const code = repositoryFiles().filter((path) => CODE_DIRS.some((dir) => path.startsWith(dir)));
    assert.ok(code.length > 50, `only ${code.length} files found to search`);
    const found = new Set<string>();
    for (const path of code) {
      const text = textOf(path);
      if (text === undefined) continue;
      const words = ` ${wordsOf(text).join(' ')} `;
      for (const { phrase, q } of phrases) if (words.includes(` ${phrase} `)) found.add(`${path}: question ${q.id} of ${q.set}`);
    }
    assert.deepEqual([...found].sort(), [], 'held-out docs questions must not appear in code or tests: read them from their file');
  });
});
