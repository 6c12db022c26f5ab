import { parserContract } from './contract.ts';
import { parsers } from './index.ts';
import { docsMixedFile } from './test-data.ts';

/** One readable sample (and a phrase it must yield) per parser. */
const SAMPLES: Record<string, [string, string]> = {
  txt: ['unstructured/fake-text.txt', 'This is a test document to use for unit tests.'],
  markdown: ['unstructured/README.md', 'Example Docs'],
  html: ['markitdown/test_blog.html', 'the baseline accuracy of untuned gpt-4 can be improved by 20%'],
  pdf: ['markitdown/test.pdf', 'multi-agent conversations'],
  docx: ['markitdown/test.docx', '314b0a30-5b04-470b-b9f7-eed2c2bec74a'],
  csv: ['unstructured/stanley-cups.csv', 'Team: Blues; Location: STL; Stanley Cups: 1'],
  json: ['unstructured/arbitrary-records.json', 'name: Garden Trowel'],
  pptx: ['markitdown/test.pptx', '2cdda5c8-e50e-4db4-b5f0-9722a649f455'],
  xlsx: ['markitdown/test.xlsx', '6ff4173b-42a5-4784-9b19-f49caff4d93d'],
  eml: ['unstructured/eml/fake-email.eml', 'This is a test email to use for unit tests.'],
  epub: ['markitdown/test.epub', 'Chapter 1'],
  ipynb: ['markitdown/test_notebook.ipynb', 'print("markitdown")'],
  odt: ['unstructured/fake.odt', 'Lorem ipsum dolor sit amet.'],
  xml: ['unstructured/factbook.xml', 'capital: Ottawa'],
  image: ['markitdown/test.jpg', 'Multi-Agent Conversation'],
  rst: ['unstructured/README.rst', 'You can parse this document using the HTML parser.'],
};

for (const parser of parsers) {
  const entry = SAMPLES[parser.name];
  if (!entry) throw new Error(`no contract sample for parser ${parser.name}: add one to SAMPLES`);
  parserContract(parser, () => {
    const file = docsMixedFile(entry[0]);
    return file && { ...file, contains: entry[1] };
  });
}
