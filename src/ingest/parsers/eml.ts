import { simpleParser, type AddressObject } from 'mailparser';
import { DossierError, oneLine } from '../../errors/index.ts';
import { decodeText, detectEncoding, looksLikeText } from '../encoding.ts';
import type { Block, Parser } from '../types.ts';
import { htmlStringToBlocks } from './html-blocks.ts';
import { fileStem, paragraphsOf, timeoutFor, withTimeout } from './util.ts';

/** Header names that tell an RFC 822 message from arbitrary text. */
const MAIL_HEADER = /^(from|to|cc|subject|date|message-id|mime-version|content-type|received|return-path|reply-to|sender|x-[\w-]+):/im;

function addresses(value: AddressObject | AddressObject[] | undefined): string | undefined {
  if (!value) return undefined;
  const text = (Array.isArray(value) ? value : [value])
    .map((a) => a.text)
    .filter(Boolean)
    .join(', ');
  return text || undefined;
}

/** E-mail (RFC 822/MIME): subject is the title, headers become metadata and a leading block, body text follows. */
export const emlParser: Parser = {
  name: 'eml',
  extensions: ['eml', 'mht', 'mhtml', 'p7s'],
  mediaTypes: ['message/rfc822'],
  async parse({ path, bytes }) {
    if (decodeText(bytes.subarray(0, 4096)).trim().length === 0) throw new DossierError('empty-document', 'empty e-mail file');
    // mailparser reads bytes as 8-bit MIME; a message saved as UTF-16/32 must be re-encoded first.
    const encoding = detectEncoding(bytes).encoding;
    const source =
      encoding.startsWith('utf-16') || encoding.startsWith('utf-32')
        ? Buffer.from(decodeText(bytes), 'utf8')
        : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const head = source.subarray(0, 8192).toString('latin1');
    if (!MAIL_HEADER.test(head)) throw new DossierError('parse-failed', 'not an e-mail message: no mail headers');

    let mail;
    try {
      mail = await withTimeout(simpleParser(source, { skipImageLinks: true, skipTextToHtml: true }), timeoutFor(bytes), 'e-mail parsing');
    } catch (error) {
      if (DossierError.isInstance(error)) throw error;
      throw new DossierError('parse-failed', `malformed e-mail: ${oneLine(error).slice(0, 200)}`, { cause: error });
    }
    const contentType = String((mail.headers.get('content-type') && (mail.headers.get('content-type') as { value?: string }).value) || '');
    if (/multipart\/encrypted|application\/(x-)?pkcs7-mime/i.test(contentType) && !/signed-data/i.test(contentType)) {
      throw new DossierError('encrypted-document', 'encrypted e-mail (S/MIME or PGP)');
    }

    const subject = (mail.subject ?? '').replace(/\s+/g, ' ').trim();
    const from = addresses(mail.from);
    const to = addresses(mail.to);
    const cc = addresses(mail.cc);
    // mailparser substitutes "now" for an unparsable Date header; only a real date is a fact.
    const rawDate = /^date:[ \t]*(.+)$/im.exec(head)?.[1];
    const date =
      rawDate && !Number.isNaN(Date.parse(rawDate)) && mail.date && !Number.isNaN(mail.date.getTime())
        ? mail.date.toISOString()
        : undefined;

    let body: Block[] = [];
    const text = (mail.text ?? '').replace(/\r\n?/g, '\n');
    if (text.trim()) body = paragraphsOf(text);
    else if (typeof mail.html === 'string' && mail.html.trim()) body = htmlStringToBlocks(mail.html);
    if (body.some((block) => /-----BEGIN PGP MESSAGE-----/.test(block.text))) {
      throw new DossierError('encrypted-document', 'encrypted e-mail (PGP)');
    }
    if (body.length > 0 && !looksLikeText(body.map((b) => b.text).join('\n'))) {
      throw new DossierError('parse-failed', 'e-mail body is binary data');
    }

    const headerLines = [
      from && `From: ${from}`,
      to && `To: ${to}`,
      cc && `Cc: ${cc}`,
      date && `Date: ${date}`,
      subject && `Subject: ${subject}`,
    ].filter((line): line is string => Boolean(line));
    if (body.length === 0 && !subject) throw new DossierError('empty-document', 'e-mail has no subject and no body text');
    const blocks: Block[] = [];
    if (headerLines.length > 0) blocks.push({ type: 'text', text: headerLines.join('\n') });
    blocks.push(...body);

    const metadata: Record<string, unknown> = {};
    if (subject) metadata.subject = subject;
    if (from) metadata.from = from;
    if (to) metadata.to = to;
    if (cc) metadata.cc = cc;
    if (date) metadata.date = date;
    if (mail.messageId) metadata.messageId = mail.messageId;
    const attachments = mail.attachments
      .filter((a) => a.contentDisposition !== 'inline' || a.filename)
      .map((a) => a.filename ?? a.contentType);
    if (attachments.length > 0) metadata.attachments = attachments;
    return { title: subject || fileStem(path), mediaType: 'message/rfc822', blocks, metadata };
  },
};
