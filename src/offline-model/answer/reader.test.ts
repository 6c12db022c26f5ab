import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { StoredChunk } from '../../store/types.ts';
import { Tokenizer } from '../../text/tokenize.ts';
import { formatEvidence } from '../../evidence/evidence-format.ts';
import { EvidenceLedger } from '../../evidence/ledger.ts';
import { composeAnswer } from './answer-composer.ts';
import { readPromptState } from '../prompt-state.ts';
import { add, datesIn, decimal, divide, formatDecimal, quantitiesIn, subtract } from '../text/quantities.ts';
import { analyseQuestion } from '../question/question.ts';
import { isLeadIn, segmentsOf, sentencesOf, splitSentences } from '../text/sentences.ts';
import { candidateSpans, nameSpans } from '../text/spans.ts';

const tokenizer = new Tokenizer({ language: 'english' });

let nextId = 0;
/** A stored chunk as a search would return it. */
function chunk(title: string, text: string, headingPath: string[] = []): StoredChunk {
  nextId++;
  return {
    id: nextId,
    documentId: nextId,
    collection: 'default',
    title,
    source: `/d/${title}.md`,
    ordinal: 0,
    text,
    tokenCount: 40,
    headingPath,
    charStart: 0,
    charEnd: text.length,
  };
}

/** The prompt after one round of searches, each [query, chunks found]. */
function promptWith(question: string, searches: Array<[string, StoredChunk[]]>): LanguageModelV3Prompt {
  const ledger = new EvidenceLedger();
  const ids = searches.map((_, i) => `offline-1-${i}`);
  return [
    { role: 'system', content: 'rules' },
    { role: 'user', content: [{ type: 'text', text: question }] },
    {
      role: 'assistant',
      content: searches.map(([query], i) => ({
        type: 'tool-call' as const,
        toolCallId: ids[i],
        toolName: 'search_knowledge',
        input: JSON.stringify({ query }),
      })),
    },
    {
      role: 'tool',
      content: searches.map(([query, chunks], i) => {
        const entries = ledger
          .addHits(
            chunks.map((c, rank) => ({ chunk: c, score: 10 - rank })),
            { step: 1, query, tool: 'search_knowledge' },
          )
          .map((a) => a.entry);
        return {
          type: 'tool-result' as const,
          toolCallId: ids[i],
          toolName: 'search_knowledge',
          output: { type: 'text' as const, value: formatEvidence(entries, 4000) },
        };
      }),
    },
  ];
}

/** The reader's answer to a question over the given passages (all found by the question's search). */
function answer(question: string, chunks: StoredChunk[], more: Array<[string, StoredChunk[]]> = []): string {
  return composeAnswer(readPromptState(promptWith(question, [[question, chunks], ...more])), tokenizer, 3);
}

describe('offline reader: two-part questions', () => {
  it('gives a yes/no part its verdict on the line of the sentence it was read from, cited, after the other part answered as on its own', () => {
    const passages = [
      chunk(
        'Installing Gizmo',
        'Gizmo is installed with pip, and its plugins come with the plugins extra.\n\n```\npip install gizmo[plugins]\n```\n\nThe plugins extra installs every bundled Gizmo plugin. Plugins of Gizmo can also be installed one by one with pip.',
        ['Installing Gizmo'],
      ),
      chunk('Gizmo cache', 'The Gizmo cache is kept between runs in the user cache folder.', ['Gizmo cache']),
    ];
    const alone = answer('How do I install Gizmo plugins with pip?', passages).split('\n```')[1];
    const text = answer('How do I install Gizmo plugins with pip, and is the Gizmo cache kept between runs?', passages);
    const lines = text.split('\n');
    assert.ok(!lines.includes('Yes') && !lines.includes('No'), `a verdict stands alone: ${text}`);
    assert.match(text, /\nYes: The Gizmo cache is kept between runs in the user cache folder\. \[E\d+\]$/);
    assert.ok(text.startsWith('```\npip install gizmo[plugins]\n```'), text);
    assert.ok(alone !== undefined && text.includes(alone.split('\n').slice(0, 3).join('\n')), `the first part as answered alone: ${alone}`);
  });
});

describe('offline reader: question analysis', () => {
  const cases: Array<[string, string, string, string?]> = [
    ['Who leads the team that built the Tern-4 salinity sensor?', 'who', 'person'],
    ['When was Halvorsen Instruments founded?', 'when', 'date'],
    ['In what year did the company build its first product?', 'when', 'year'],
    ['Where did the Tern-4 sea trial take place?', 'where', 'place'],
    ['In which city was the founder of Harbor Station born?', 'which', 'place', 'city'],
    ['How many engineers does the Deep Water Team have?', 'how-many', 'number', 'engineers'],
    ['The arena where the Lewiston Maineiacs played can seat how many people?', 'how-many', 'number', 'people'],
    ['Is HTML autoescaping enabled by default in Jinja?', 'yes-no', 'yes-no'],
    ['How do I install httpx with HTTP/2 support?', 'how-to', 'command'],
    ['What are the four types of timeout in HTTPX?', 'list', 'list'],
    ['Which optional dependencies can be installed with HTTPX?', 'list', 'list'],
    ['Why is Jinja called Jinja?', 'why', 'reason'],
    ['Which team has more engineers, the Coastal Team or the Harbour Systems Team?', 'comparison', 'entity'],
    ['By how many million euros did revenue grow from 2023 to 2024?', 'calculation', 'number'],
    ['Tysons Galleria is located in what county?', 'where', 'place', 'county'],
    ['What is the name of the fight song of the university in Lawrence, Kansas?', 'what', 'entity', 'fight song'],
    ['What happens to a citation that resolves to nothing?', 'what', 'description'],
  ];
  for (const [question, type, answerType, focus] of cases) {
    it(`${question} → ${type} / ${answerType}${focus ? ` / ${focus}` : ''}`, () => {
      const analysis = analyseQuestion(question);
      assert.equal(analysis.type, type);
      assert.equal(analysis.answerType, answerType);
      if (focus) assert.equal(analysis.focus, focus);
    });
  }

  it('finds the entity chain of a multi-hop question and what it asks about the bridge', () => {
    const founder = analyseQuestion('In which city was the founder of Harbor Station born?');
    assert.deepEqual(
      founder.chain.map((h) => [h.relation, h.entity, h.rest, h.terminal]),
      [['founder', 'Harbor Station', 'In which city was {} born?', false]],
    );
    const team = analyseQuestion('Who leads the team that built the Tern-4 salinity sensor?');
    assert.equal(team.chain[0].entity, 'Tern-4');
    assert.equal(team.chain[0].rest, 'Who leads {}?');
    const company = analyseQuestion('In what year did the company founded by Marit Halvorsen build its first own product?');
    assert.equal(company.chain[0].entity, 'Marit Halvorsen');
    assert.equal(analyseQuestion('Who is the founder of Harbor Station?').chain[0].terminal, true, 'asking for the bridge itself');
  });

  it('reads questions worded in other ways: where the noun asked for ends, who is asked, where a hop starts', () => {
    // the noun asked for ends at a participle or at a verb before a name
    assert.equal(
      analyseQuestion('Which young adult science fantasy series told in the first person has companion books?').focus,
      'young adult science fantasy series',
    );
    assert.equal(analyseQuestion('Which fantasy film stars Sarah Bolger and features a New England family?').focus, 'fantasy film');
    // occupations and possessors are persons
    assert.equal(
      analyseQuestion('Which consultant, who helped organizations improve their performance, went by the stage name Aladin?').answerType,
      'person',
    );
    assert.equal(analyseQuestion('Which former White House intern was one of the women in the book?').answerType, 'person');
    assert.equal(analyseQuestion("Which singer's song was the lead single from the album Confessions?").answerType, 'person');
    assert.equal(analyseQuestion("What brand's comic character inspired a song?").answerType, 'entity');
    // "Who formed X?" is answered by the name after "formed by"
    assert.equal(analyseQuestion('Who formed the South Korean boy group whose debut album is 2014 S/S?').agentOf, 'formed');
    // one kind is asked, not a list of items; "what kinds of" asks for the items
    assert.equal(analyseQuestion('What sort of products are provided by the company of which Bordan Tkachuk was CEO?').type, 'what');
    assert.equal(analyseQuestion('What kinds of values can the auth argument take?').type, 'list');
    // hops: a role noun, a containing thing, a name after a demonym
    assert.deepEqual(
      analyseQuestion('The playwright of Three Men on a Horse was born in which year?').chain.map((h) => [h.relation, h.entity]),
      [['playwright', 'Three Men']],
    );
    const county = analyseQuestion('How many inhabitants does the county containing Brown State Fishing Lake have?').chain[0];
    assert.deepEqual(
      [county.entity, county.rest, county.terminal],
      ['Brown State Fishing Lake', 'How many inhabitants does {} have?', false],
    );
    assert.equal(
      analyseQuestion('The county where Brown State Fishing Lake lies has how many inhabitants?').chain[0]?.entity,
      'Brown State Fishing Lake',
    );
    // "Name the …" asks which one; a wh-word in a title asks nothing; "formed by which company" asks the agent
    const named = analyseQuestion('Name the American film director who hosted the 18th Independent Spirit Awards in 2002.');
    assert.deepEqual([named.type, named.answerType, named.focus], ['which', 'person', 'american film director']);
    assert.equal(analyseQuestion('Name the rules of ownership.').type, 'list');
    assert.equal(
      analyseQuestion('The nursery rhyme that inspired What Are Little Girls Made Of has what Roud Folk Song Index number?').answerType,
      'number',
    );
    assert.equal(analyseQuestion('The boy group with the debut album 2014 S/S was formed by which company').agentOf, 'formed');
    assert.equal(analyseQuestion('Which former white house intern appears in the book?').focus, 'former white house intern');
    assert.equal(
      analyseQuestion('The creator of the Japanese manga about high school student Ichitaka Seto was born in which year?').chain[0].entity,
      'Ichitaka Seto',
    );
    // a statement ending in a relative clause asks for the one it describes
    const founder = analyseQuestion(
      'Kaiser Ventures corporation was founded by an American industrialist who became known as the father of modern American shipbuilding?',
    );
    assert.deepEqual(
      founder.chain.filter((h) => h.entity).map((h) => [h.entity, h.terminal]),
      [['Kaiser Ventures corporation', true]],
    );
  });

  it('reads comparisons of places named with their region, of populations and of counts', () => {
    const counties = analyseQuestion(
      'Which county has a larger population, Sullivan County, New Hampshire or Carroll County, New Hampshire?',
    );
    assert.deepEqual(counties.candidates, ['Sullivan County, New Hampshire', 'Carroll County, New Hampshire']);
    assert.equal(counties.comparison?.attribute, 'population');
    const village = analyseQuestion('Which village had more people, Willoughton or Kirton, Suffolk?');
    assert.deepEqual([village.candidates, village.comparison?.attribute], [['Willoughton', 'Kirton, Suffolk'], 'population']);
    const thatOf = analyseQuestion('Is the population of Strasbourg greater than that of Boston, Lincolnshire?');
    assert.deepEqual(
      [thatOf.type, thatOf.candidates, thatOf.comparison?.attribute, thatOf.comparison?.firstWins],
      ['yes-no', ['Strasbourg', 'Boston, Lincolnshire'], 'population', true],
    );
    assert.deepEqual(analyseQuestion('Does Halliburton employ more people than Mondelez International?').candidates, [
      'Halliburton',
      'Mondelez International',
    ]);
    assert.equal(analyseQuestion('Which arena can seat more people, Dwyer Arena or Case Gym?').comparison?.attribute, 'seats');
    // "more than 70 countries" is a property of one option, not a comparative
    assert.equal(
      analyseQuestion('Which company has operations in more than 70 countries, Halliburton or Mondelez International?').comparison
        ?.byProperty,
      true,
    );

    const dover = chunk(
      'Dover, New Hampshire',
      'Dover is a city in Strafford County, New Hampshire, United States.  The population was 29,987 at the 2010 census.',
    );
    const lempster = chunk(
      'Lempster, New Hampshire',
      'Lempster is a town in Sullivan County, New Hampshire, United States.  The population was 1,154 at the 2010 census.',
    );
    assert.equal(
      answer('Which has more residents, Dover, New Hampshire or Lempster, New Hampshire?', [dover, lempster]).split('\n')[0],
      'Dover, New Hampshire',
    );
    const county = answer('Are Dover, New Hampshire and Lempster, New Hampshire in the same county?', [dover, lempster]).split('\n');
    assert.equal(county[0], 'No');
    assert.match(county[1], /Strafford County \[E1\]; .*Sullivan County \[E2\]/);
    const guns = chunk(
      "Guns N' Roses discography",
      "Guns N' Roses is an American hard rock band.  The band has released six studio albums, two live albums and eighteen singles.",
    );
    const anggun = chunk(
      'Anggun discography',
      'The discography of Anggun consists of ten studio albums, two soundtrack albums and thirty-eight singles.',
    );
    assert.match(
      answer("Who has released more studio albums, Guns N' Roses or Anggun?", [guns, anggun]),
      /^Anggun\n.*six studio albums.*ten studio albums/,
    );
    const parkridge = chunk(
      'Parkridge, Saskatoon',
      'Parkridge is a community in Saskatoon.  The neighbourhood of Parkridge with a 2001 census population of 4,505 is larger than the city of Melville.',
    );
    const kirton = chunk(
      'Kirton, Suffolk',
      'Kirton is a village in Suffolk.  According to the 2011 census, Kirton had a population of 14,146.',
    );
    assert.equal(
      answer('Which has the larger population, Parkridge, Saskatoon or Kirton, Suffolk?', [parkridge, kirton]).split('\n')[0],
      'Kirton, Suffolk',
      '"a 2001 census" is a year, not 2,001 censuses',
    );
  });

  it('compares options by their own passages: names holding comparatives or "and", nationalities, dates, sports', () => {
    const lies = analyseQuestion('Are True Lies and Last Action Hero both American action films?');
    assert.equal(lies.comparison?.direction, 'same', '"Last" in an option names it, it compares nothing');
    assert.deepEqual(analyseQuestion('Which movie is older, Kiss and Tell or A Kiss for Corliss?').candidates, [
      'Kiss and Tell',
      'Kiss for Corliss',
    ]);
    const vince = chunk(
      'Vince Phillips',
      'Vincent Edwards "Vince" Phillips (born July 23, 1963) is an American former professional boxer.',
    );
    const bunny = chunk(
      'Bunny Grant',
      'George Leslie "Bunny" Grant (born 29 September 1940) is a Jamaican professional boxer who won the Central American light welterweight Title.',
    );
    assert.equal(answer('Which boxer is American, Vince Phillips or Bunny Grant?', [vince, bunny]).split('\n')[0], 'Vince Phillips');
    const henry = chunk('Henry J. Kaiser', 'Henry John Kaiser (May 9, 1882 – August 24, 1967) was an American industrialist.');
    const senior = chunk('Edgar Kaiser Sr.', 'Edgar Fosburgh Kaiser Sr. (July 29, 1908 – December 7, 1981) was an American industrialist.');
    const junior = chunk(
      'Edgar Kaiser Jr.',
      'Edgar Fosburgh Kaiser Jr. was an American-Canadian financier.  He was born in Portland, Oregon on July 5, 1942 and is the grandson of shipbuilding industrialist Henry J. Kaiser.',
    );
    assert.match(
      answer('Who was the older industrialist, Henry J. Kaiser or Edgar Kaiser Sr.?', [junior, senior, henry]),
      /^Henry J\. Kaiser\nHenry J\. Kaiser: May 9, 1882 \[E3\]/,
    );
    const gone = chunk(
      'Gone in 60 Seconds (2000 film)',
      'Gone in 60 Seconds is a 2000 American action heist film, starring Nicolas Cage.  The film is a loose remake of the 1974 H.B. Halicki film of the same name, released by Touchstone.',
    );
    const lies2 = chunk('True Lies', 'True Lies is a 1994 American action film directed by James Cameron.');
    assert.equal(
      answer('Was Gone in 60 Seconds released before True Lies?', [gone, lies2]).split('\n')[0],
      'No',
      "the year its definition gives, not the original's",
    );
    const bogues = chunk('Muggsy Bogues', 'Tyrone Curtis "Muggsy" Bogues (born January 9, 1965) is an American retired basketball player.');
    const walker = chunk(
      'Ayana Walker',
      "Ayana Walker (born September 10, 1979) is an American former women's basketball player.  She played for the Louisiana Tech Lady Techsters.",
    );
    assert.match(answer('What sport did both Muggsy Bogues and Ayana Walker play?', [bogues, walker]), /^basketball \[E1\]\[E2\]/);
  });

  it('compares the countries places are in, options after a place in the question, and lives with a birthplace', () => {
    const fishing = chunk('Fishing Lake', 'Fishing Lake is a lake located in the Canadian province of Saskatchewan.');
    const commanda = chunk('Commanda Lake', 'Commanda Lake (or Lake Commanda) is a lake located in central Ontario, Canada.');
    const lakes = chunk('Lakes of North America', 'Each country of North America has lakes of its own; some are the same size.');
    assert.match(
      answer('Are Fishing Lake and Commanda Lake located in the same country?', [fishing, commanda, lakes]),
      /^Yes\nFishing Lake: Canada \[E1\]; Commanda Lake: Canada \[E2\]/,
    );
    assert.deepEqual(analyseQuestion('Who was born in Columbus, Ohio, Mike Shank or Tony Ave?').candidates, ['Mike Shank', 'Tony Ave']);
    assert.deepEqual(analyseQuestion('Which city has fewer residents, Clinton, Minnesota or North Kansas City?').candidates, [
      'Clinton, Minnesota',
      'North Kansas City',
    ]);
    const aldo = chunk('Aldo Pontremoli', 'Aldo Pontremoli (19 January 1896 – 25 May 1928) was an Italian physicist.');
    const ralph = chunk(
      'Ralph Hefferline',
      'Ralph Franklin Hefferline (15 February 1910 in Muncie, Indiana – 16 March 1974) was a psychology professor at Columbia University.',
    );
    assert.match(answer('Did Aldo Pontremoli die before Ralph Hefferline?', [aldo, ralph]), /^Yes\n.*16 March 1974 \[E2\]/);
  });

  it('follows a described one by a participle, from a subject with its year, to a company or a titled name', () => {
    const craig = analyseQuestion('Gregory B. Craig served as special counsel in the White House of a president born in what year?')
      .chain[0];
    assert.deepEqual([craig?.entity, craig?.rest], ['Gregory B. Craig', '{} born in what year?']);
    const oilers = analyseQuestion('The 1989 Houston Oilers season was the final year as the Oilers coach for a man born on what date?')
      .chain[0];
    assert.equal(oilers?.entity, '1989 Houston Oilers season');
    const season = chunk(
      '1989 Houston Oilers season',
      'The 1989 season was the Houston Oilers 30th season in the National Football League.  It would be Jerry Glanville’s final year as the Oilers coach.',
    );
    const glanville = chunk(
      'Jerry Glanville',
      'Jerry Michael Glanville (born October 14, 1941) is a former American football player and coach.',
    );
    assert.match(
      answer('The 1989 Houston Oilers season was the final year as the Oilers coach for a man born on what date?', [season, glanville]),
      /^October 14, 1941 /,
    );
    const buffett = chunk(
      'Warren Buffett',
      'Warren Edward Buffett (born August 30, 1930) is an American business magnate.  Buffett serves as the Chief Executive Officer and Chairman of Berkshire Hathaway.',
    );
    assert.match(answer('Which company does Warren Buffett serve as Chief Executive Officer?', [buffett]), /^Berkshire Hathaway /);
    const bolger = chunk(
      'Sarah Bolger',
      'Sarah Lee Bolger (born 28 February 1991) is an Irish actress.  She is best known for her award-winning role as Lady Mary Tudor in the TV series "The Tudors".',
    );
    assert.match(
      answer('Sarah Bolger is best known for her award-winning role as which Lady in The Tudors?', [bolger]),
      /^Lady Mary Tudor /,
    );
  });

  it('reads comparisons: the options, the attribute, which end wins', () => {
    const older = analyseQuestion('Who is older, Annie Morton or Terry Richardson?');
    assert.deepEqual(older.candidates, ['Annie Morton', 'Terry Richardson']);
    assert.deepEqual(older.comparison, { attribute: 'date', direction: 'min', byDate: true });
    const depth = analyseQuestion('Which product has the greater maximum depth, the Skua-3 or the Gannet-2?');
    assert.deepEqual(depth.candidates, ['Skua-3', 'Gannet-2']);
    assert.equal(depth.comparison?.attribute, 'maximum depth');
    const revenue = analyseQuestion('Was revenue higher in 2023 or in 2024, according to the annual reports?');
    assert.deepEqual(revenue.candidates, ['2023', '2024']);
    assert.equal(revenue.comparison?.attribute, 'revenue');
    const same = analyseQuestion('Were Dorian Quell and Al Stone of the same nationality?');
    assert.equal(same.type, 'yes-no');
    assert.deepEqual(same.candidates, ['Dorian Quell', 'Al Stone']);
    assert.equal(same.comparison?.direction, 'same');
    assert.deepEqual(
      analyseQuestion('Are both Larch and Quenvaria genera?').candidates,
      ['Larch', 'Quenvaria'],
      'trailing question words are not part of a name',
    );
    assert.deepEqual(analyseQuestion('Did Tony Fields and Tommy Lee share the same nationality?').candidates, ['Tony Fields', 'Tommy Lee']);
    const higher = analyseQuestion('Is the Pyrenees or the Alps higher?');
    assert.equal(higher.type, 'comparison');
    assert.deepEqual(higher.candidates, ['Pyrenees', 'Alps']);
    assert.notEqual(higher.comparison?.attribute, 'alps', 'an option is not the attribute');
    assert.deepEqual(
      analyseQuestion('Were both Kurt Cobain and Dave Grohl American musicians?').candidates,
      ['Kurt Cobain', 'Dave Grohl'],
      'a trailing demonym is not part of a name',
    );
  });

  it('reads calculations: the operation, the quantity, years, events and the expected count', () => {
    assert.deepEqual(analyseQuestion('By how many million euros did revenue grow from 2023 to 2024?').calculation, {
      op: 'difference',
      quantity: 'revenue',
      years: ['2023', '2024'],
      unit: 'million euros',
    });
    assert.deepEqual(analyseQuestion('What was the operating profit in 2024 as a share of revenue?').calculation, {
      op: 'percentage',
      quantity: 'operating profit',
      base: 'revenue',
      years: ['2024'],
    });
    assert.deepEqual(analyseQuestion('How many engineers are there in the three engineering teams together?').calculation, {
      op: 'sum',
      quantity: 'engineers',
      years: [],
      unit: 'engineers',
      expected: 3,
    });
    const years = analyseQuestion('How many years after the founding did the company move its headquarters to Trondheim?').calculation;
    assert.equal(years?.op, 'difference');
    assert.deepEqual(years?.events, ['founding', 'company move its headquarters to trondheim']);
    assert.equal(analyseQuestion('By what percentage did revenue grow from 2023 to 2024?').calculation?.op, 'percent-change');
    assert.equal(analyseQuestion('How many engineers does the Deep Water Team have?').calculation, undefined);
  });
});

describe('offline reader: sentence splitting', () => {
  it('keeps abbreviations, initials, versions and identifiers inside a sentence', () => {
    assert.deepEqual(
      splitSentences(
        'Animorphs was written by K. A. Applegate for Scholastic Inc. in 1996. Dr. Smith uses e.g. Python 3.11.2 here, i.e. the latest.',
      ),
      ['Animorphs was written by K. A. Applegate for Scholastic Inc. in 1996.', 'Dr. Smith uses e.g. Python 3.11.2 here, i.e. the latest.'],
    );
    assert.deepEqual(splitSentences('The format! macro builds a String. Call foo.bar() first. The U.S. Army agreed.'), [
      'The format! macro builds a String.',
      'Call foo.bar() first.',
      'The U.S. Army agreed.',
    ]);
    assert.deepEqual(
      splitSentences('"Teen Titans Go! " is an American series. It airs weekly.'),
      ['"Teen Titans Go! " is an American series.', 'It airs weekly.'],
      'a title ending in "!" does not end the sentence',
    );
    assert.deepEqual(splitSentences('Use `a. B` as the separator. Then stop.'), ['Use `a. B` as the separator.', 'Then stop.']);
  });

  it('keeps code blocks whole, lists as items and rows as records', () => {
    const text =
      'You can set a timeout on a client instance:\n\nclient = httpx.Client(timeout=10.0)  # Use a default 10s timeout everywhere.\nclient = httpx.Client(timeout=None)\n\n' +
      "First, let's take a look at the ownership rules.\n\n- Each value in Rust has an owner.\n- There can only be one owner at a time.\n\n" +
      'mounts = {\n    "all://": httpx.HTTPTransport(proxy="http://localhost:8030"),\n}\n\nproduct: Tern-4; built by: Coastal Team; launched: 2021';
    assert.deepEqual(
      segmentsOf(text).map((s) => [s.kind, s.text]),
      [
        ['sentence', 'You can set a timeout on a client instance:'],
        ['code', 'client = httpx.Client(timeout=10.0)  # Use a default 10s timeout everywhere.\nclient = httpx.Client(timeout=None)'],
        ['sentence', "First, let's take a look at the ownership rules."],
        ['item', '- Each value in Rust has an owner.'],
        ['item', '- There can only be one owner at a time.'],
        ['code', 'mounts = {\n    "all://": httpx.HTTPTransport(proxy="http://localhost:8030"),\n}'],
        ['row', 'product: Tern-4; built by: Coastal Team; launched: 2021'],
      ],
    );
    assert.deepEqual(sentencesOf('```\n$ pip install httpx\n```\nInstall it with pip, then import it.'), [
      '$ pip install httpx',
      'Install it with pip, then import it.',
    ]);
    assert.equal(
      segmentsOf('››› import httpx\n››› httpx.get("https://example.org")')[0].kind,
      'code',
      'a defused REPL prompt is still code',
    );
  });

  it('knows a lead-in from a sentence that says something', () => {
    assert.ok(isLeadIn("First, let's take a look at the ownership rules."));
    assert.ok(isLeadIn('You can set a timeout on a client instance:'));
    assert.ok(isLeadIn('You can disable SSL verification completely and allow insecure requests...'));
    assert.ok(isLeadIn('The following options are available.'));
    assert.ok(!isLeadIn('Each value in Rust has an owner.'));
    assert.ok(!isLeadIn('The following day the trial ended.'));
  });
});

describe('offline reader: numbers, dates and spans', () => {
  it('reads amounts with their scale, unit and clause, and dates in their forms', () => {
    const [revenue, year, profit] = quantitiesIn(
      'Halvorsen Instruments had revenue of 55.2 million euros in 2024, and an operating profit of 6.3 million euros.',
    );
    assert.deepEqual(
      [revenue.text, revenue.scale, revenue.unit, revenue.context],
      ['55.2 million euros', 'million', 'euros', 'Halvorsen Instruments had revenue of'],
    );
    assert.ok(year.isYear);
    assert.equal(profit.context, 'an operating profit of'); // the clause after an earlier amount starts after its "and"
    assert.deepEqual(
      quantitiesIn('The trial lasted nine days.').map((q) => [q.text, formatDecimal(q.value)]),
      [['nine days', '9']],
    );
    assert.deepEqual(
      quantitiesIn('product: Gannet-2; launched: 2019; max_depth_m: 3000').map((q) => [q.field, q.isYear]),
      [
        ['launched', true],
        ['max_depth_m', false],
      ],
    );
    assert.deepEqual(
      datesIn('Zaheer Khan (born 7 October 1978) played from 2000 till 2014; see #1006.').map((d) => d.text),
      ['7 October 1978', 'from 2000 till 2014'],
    );
  });

  it('computes exactly, without float noise', () => {
    assert.equal(formatDecimal(add(decimal('0.1')!, decimal('0.2')!)), '0.3');
    assert.equal(formatDecimal(subtract(decimal('55.2')!, decimal('48.0')!)), '7.2');
    assert.equal(formatDecimal(divide(decimal('630')!, decimal('55.2')!, 1)!), '11.4');
    assert.equal(divide(decimal('1')!, decimal('0')!, 2), undefined);
  });

  it('extracts names without role titles, leading numbers or months, and keeps nicknames and suffixes', () => {
    assert.deepEqual(
      nameSpans('Kiss and Tell is a 1945 film starring then 17-year-old Shirley Temple as Corliss Archer.').map((s) => s.text),
      ['Kiss and Tell', 'Shirley Temple', 'Corliss Archer'],
    );
    assert.ok(nameSpans('He served New York Governor Nelson Rockefeller in 1970.').some((s) => s.text === 'Nelson Rockefeller'));
    assert.ok(nameSpans('The trial took place in the Hardangerfjord in May 2021.').some((s) => s.text === 'Hardangerfjord'));
    assert.ok(
      nameSpans('It is sold by Mondelez International, Inc., a food company.').some((s) => s.text === 'Mondelez International, Inc.'),
    );
    assert.ok(nameSpans("He was voted the IFFHS World's Best Goalkeeper in 1992.").some((s) => s.text === "IFFHS World's Best Goalkeeper"));
  });

  it('fits spans to the expected type: places for "which city", numbers with their unit, identifiers', () => {
    const context = (question: string) => ({
      analysis: analyseQuestion(question),
      questionTerms: new Set(tokenizer.terms(question)),
      stem: (w: string) => tokenizer.terms(w)[0] ?? w,
    });
    const city = candidateSpans(
      'Mara Lindqvist was born in Bergen, Norway, in 1931.',
      context('In which city was the founder of Harbor Station born?'),
    );
    const best = [...city].sort((a, b) => b.fit - a.fit)[0];
    assert.equal(best.text, 'Bergen');
    const engineers = candidateSpans(
      'It has 22 engineers and works from Trondheim.',
      context('How many engineers does the Deep Water Team have?'),
    );
    assert.deepEqual(
      engineers.map((s) => [s.text, s.fit]),
      [['22', 1]],
      'the counted noun the question names is dropped',
    );
    assert.deepEqual(
      candidateSpans('The daily meal allowance is 80 euros abroad.', context('What is the daily meal allowance abroad?')).map(
        (s) => s.text,
      ),
      ['80 euros'],
    );
    assert.ok(
      candidateSpans(
        'In HTTPX, this attribute is instead named response.next_request.',
        context('Which response attribute gives the next request?'),
      ).some((s) => s.text === 'response.next_request'),
    );
    assert.deepEqual(
      candidateSpans('HTTPX requires Python 3.9+', context('Which Python version does HTTPX require?')).map((s) => s.text),
      ['3.9+'],
    );
    const kinds = (sentence: string, question: string) =>
      candidateSpans(sentence, context(question))
        .filter((s) => s.kind === 'phrase')
        .map((s) => s.text);
    assert.deepEqual(
      kinds(
        'Viglen Ltd provides IT products and services, including servers.',
        'Bordan Tkachuk was the CEO of a company that provides what sort of products?',
      ),
      ['IT products and services'],
      "modifiers stop at the question's words",
    );
    assert.deepEqual(kinds('Quenvaria is a genus of flowering plants.', 'What type of plant is Quenvaria?'), ['flowering plants']);
    assert.deepEqual(kinds('Quenvaria is a genus of flowering plants.', 'Which plant is Quenvaria?'), [], 'only "what type of" questions');
  });
});

describe('offline reader: answers', () => {
  it('puts the span first, then the supporting sentence, cited', () => {
    const text = answer('How many engineers does the Deep Water Team have?', [
      chunk('Staff directory', 'The Deep Water Team is led by Tobias Rønning. It has 22 engineers and works from Trondheim.', [
        'Staff directory',
        'Deep Water Team',
      ]),
      chunk('Staff directory', 'The Coastal Team is led by Ingrid Maalen. It has 14 engineers and works from Ålesund.', [
        'Staff directory',
        'Coastal Team',
      ]),
    ]);
    const [direct, ...support] = text.split('\n');
    assert.equal(direct, '22 [E1]');
    assert.ok(support[0].includes('22 engineers') && support[0].endsWith('[E1]'), text);
    assert.ok(!/^Offline extractive answer/.test(text), 'no banner');
  });

  it('answers a bridge question through the entity the first hop names', () => {
    const question = 'In which city was the founder of Harbor Station born?';
    const station = chunk('Harbor Station', 'Harbor Station was founded in 1962 by Mara Lindqvist.');
    const mara = chunk('Mara Lindqvist', 'Mara Lindqvist was born in Bergen, Norway, in 1931.');
    const tides = chunk('Tide tables', 'The tide tables are published every spring.');
    const text = answer(
      question,
      [station, tides],
      [
        ['Harbor Station', [station]],
        ['Mara Lindqvist', [mara]],
      ],
    );
    const [direct, ...support] = text.split('\n');
    assert.match(direct, /^Bergen \[E1\]\[E3\]$/, text);
    assert.ok(
      support.some((line) => line.includes('founded in 1962 by Mara Lindqvist')) && support.some((line) => line.includes('born in Bergen')),
      text,
    );
  });

  it('computes with every operand cited, and says which operand is missing', () => {
    const r2023 = chunk('Annual report 2023', 'Halvorsen Instruments had revenue of 48.0 million euros in 2023.');
    const r2024 = chunk(
      'Annual report 2024',
      'Halvorsen Instruments had revenue of 55.2 million euros in 2024, and an operating profit of 6.3 million euros.',
    );
    const growth = answer('By how many million euros did revenue grow from 2023 to 2024?', [r2024, r2023]);
    assert.equal(growth.split('\n')[0], '55.2 − 48.0 = 7.2 million euros [E1][E2]');
    const share = answer('What was the operating profit in 2024 as a share of revenue?', [r2024]);
    assert.equal(share.split('\n')[0], '6.3 / 55.2 = 11.4% [E1]');
    const missing = answer('By how many million euros did revenue grow from 2022 to 2024?', [r2024, r2023]);
    assert.match(
      missing.split('\n')[0],
      /^Not found in the documents: the revenue in 2022, so it cannot be computed\. Found: 55\.2 million euros \[E1\]\.$/,
    );
    const teams = ['Coastal Team', 'Deep Water Team', 'Harbour Systems Team'].map((team, i) =>
      chunk('Staff directory', `The ${team} is led by someone. It has ${[14, 22, 9][i]} engineers.`, ['Staff directory', team]),
    );
    assert.equal(
      answer('How many engineers are there in the three engineering teams together?', teams).split('\n')[0],
      '14 + 22 + 9 = 45 engineers [E1][E2][E3]',
    );
    const history = chunk(
      'Company history',
      'Halvorsen Instruments was founded in 1987 by Marit Halvorsen. In 2004 the company moved its headquarters to Trondheim.',
    );
    assert.equal(
      answer('How many years after the founding did the company move its headquarters to Trondheim?', [history]).split('\n')[0],
      '2004 − 1987 = 17 years [E1]',
    );
  });

  it('computes between two described quantities, evaluates expressions, converts time units', () => {
    const limits = chunk(
      'Resource limits',
      'It takes instances of httpx.Limits which define:\n\n- max_keepalive_connections, number of allowable keep-alive connections, or None to always allow. (Defaults 20)\n- max_connections, maximum number of allowable connections, or None for no limits. (Default 100)',
    );
    assert.equal(
      answer('By default, how many more connections than keep-alive connections does an HTTPX connection pool allow?', [limits]).split(
        '\n',
      )[0],
      '100 − 20 = 80 connections [E1]',
    );
    const timeouts = chunk(
      'Timeouts',
      '# A client with a 60s timeout for connecting, and a 10s timeout elsewhere.\ntimeout = httpx.Timeout(10.0, connect=60.0)',
    );
    assert.equal(
      answer('How many times longer is the connect timeout than the timeout used elsewhere?', [timeouts]).split('\n')[0],
      '60 / 10 = 6 times [E1]',
    );
    const power = chunk(
      'Math',
      'Unlike Python, chained pow is evaluated left to right. {{ 3**3**3 }} is evaluated as (3**3)**3 in Jinja, but would be evaluated as 3**(3**3) in Python.',
    );
    assert.equal(answer('What does {{ 3**3**3 }} evaluate to in Jinja?', [power]).split('\n')[0], '(3**3)**3 = 19683 [E1]');
    const cache = chunk('Fragment cache', 'The following example caches a sidebar for 300 seconds.');
    assert.equal(
      answer('For how many minutes does the fragment cache example cache the sidebar?', [cache]).split('\n')[0],
      '300 seconds = 5 minutes [E1]',
    );
  });

  it('compares the options the question names by the attribute it asks about', () => {
    const catalog = chunk(
      'product-catalog',
      'product: Skua-3; built by: Deep Water Team; max_depth_m: 1200\n\nproduct: Gannet-2; built by: Deep Water Team; max_depth_m: 3000',
    );
    assert.equal(answer('Which product has the greater maximum depth, the Skua-3 or the Gannet-2?', [catalog]).split('\n')[0], 'Gannet-2');
    const morton = chunk('Annie Morton', 'Annie Morton (born October 8, 1970) is an American model.');
    const richardson = chunk('Terry Richardson', 'Terry Richardson (born August 14, 1965) is an American fashion photographer.');
    const older = answer('Who is older, Annie Morton or Terry Richardson?', [morton, richardson]).split('\n');
    assert.equal(older[0], 'Terry Richardson');
    assert.match(older[1], /Annie Morton: October 8, 1970 \[E1\]; Terry Richardson: August 14, 1965 \[E2\]/);
  });

  it('answers "same …?" questions by the attribute of both options', () => {
    const fields = chunk('Tony Fields', 'Tony Fields (1958 – 1995) was an American dancer and actor.');
    const lee = chunk('Tommy Lee', 'Tommy Lee (born October 3, 1962) is a Greek-American musician.');
    const same = answer('Did Tony Fields and Tommy Lee share the same nationality?', [fields, lee]).split('\n');
    assert.equal(same[0], 'No');
    assert.match(same[1], /Tony Fields: American \[E1\]; Tommy Lee: Greek \[E2\]/);
  });

  it('compares by date when the passages say "founded" or "chartered" for "established first"', () => {
    const alabama = chunk('University of Alabama', 'The University of Alabama is a public research university founded in 1831.');
    const auburn = chunk('Auburn University', 'Auburn University is a public university in Auburn, Alabama. It was chartered in 1856.');
    const first = answer('Which was established first, the University of Alabama or Auburn University?', [alabama, auburn]).split('\n');
    assert.equal(first[0], 'University of Alabama');
    assert.match(first[1], /University of Alabama: 1831 \[E1\]; Auburn University: 1856 \[E2\]/);
  });

  it('answers "Which …, A or B?" with no comparative by the option the description fits', () => {
    const marren = chunk('Hollis Marren', 'Hollis Marren (March 3, 1911 – June 2, 1990) was an American poet and short story writer.');
    const fenwick = chunk(
      'Duncan Alasdair Fenwick',
      'Duncan Alasdair Fenwick (12 May 1868 – 30 November 1931) was a Canadian poet. He was born in Glasgow, Scotland.',
    );
    assert.equal(analyseQuestion('Which poet was from Scotland, Hollis Marren or Duncan Alasdair Fenwick?').comparison?.byProperty, true);
    assert.equal(analyseQuestion('Who is older, Annie Morton or Terry Richardson?').comparison?.byProperty, undefined);
    const from = answer('Which poet was from Scotland, Hollis Marren or Duncan Alasdair Fenwick?', [marren, fenwick]).split('\n');
    assert.equal(from[0], 'Duncan Alasdair Fenwick');
    const pellarine = chunk('Pellarine', 'Pellarine is a genus of flowering plants in the family Orvelliaceae.');
    const dornvale = chunk('Dornvale', 'Dornvale is a genus of large globe-shaped succulents, mostly with long spines and small flowers.');
    assert.equal(answer('Which is a genus of flowering plants, Dornvale or Pellarine?', [dornvale, pellarine]).split('\n')[0], 'Pellarine');
  });

  it('answers "Is A older than B?" by whether the first option wins, and compares deaths and lifespans', () => {
    const hvidt = chunk('Kasper Hvidt', 'Kasper Hvidt (born 6 February 1976 in Copenhagen) is a Danish retired handball goalkeeper.');
    const schmeichel = chunk('Kasper Schmeichel', 'Kasper Peter Schmeichel (born 5 November 1986) is a Danish professional footballer.');
    assert.equal(analyseQuestion('Is Kasper Hvidt older than Kasper Schmeichel?').comparison?.firstWins, true);
    const older = answer('Is Kasper Hvidt older than Kasper Schmeichel?', [hvidt, schmeichel]).split('\n');
    assert.equal(older[0], 'Yes');
    assert.match(older[1], /Kasper Hvidt: 6 February 1976 \[E1\]; Kasper Schmeichel: 5 November 1986 \[E2\]/);
    assert.equal(answer('Is Kasper Schmeichel older than Kasper Hvidt?', [hvidt, schmeichel]).split('\n')[0], 'No');
    const coli = chunk(
      'François Coli',
      'François Coli (June 5, 1881 – presumably on or after May 8, 1927) was a French pilot and navigator.',
    );
    const madon = chunk('Georges Madon', 'Georges Félix Madon (July 28, 1892 – November 11, 1924) was a French ace pilot.');
    const died = answer('Who died first, François Coli or Georges Madon?', [coli, madon]).split('\n');
    assert.equal(died[0], 'Georges Madon');
    assert.match(died[1], /François Coli: May 8, 1927 \[E1\]; Georges Madon: November 11, 1924 \[E2\]/);
    const temple = chunk('Shirley Temple', 'Shirley Temple Black (April 23, 1928 – February 10, 2014) was an American actress.');
    const waldo = chunk('Janet Waldo', 'Janet Marie Waldo (February 4, 1920 – June 12, 2016) was an American radio and voice actress.');
    assert.equal(answer('Who lived longer, Shirley Temple or Janet Waldo?', [temple, waldo]).split('\n')[0], 'Janet Waldo');
    const gym = chunk('Case Gym', 'Case Gym is a 1,800-seat multi-purpose arena at Boston University.');
    const colisee = chunk(
      'Androscoggin Bank Colisée',
      'The Androscoggin Bank Colisée is a 4,000 capacity (3,677 seated) multi-purpose arena in Lewiston, Maine.',
    );
    assert.equal(
      answer('Which arena has more seats, Case Gym or the Androscoggin Bank Colisée?', [gym, colisee]).split('\n')[0],
      'Androscoggin Bank Colisée',
    );
  });

  it('names a person as the passage about them is titled, initials included', () => {
    const kaiser = chunk(
      'Henry J. Kaiser',
      'Henry John Kaiser (May 9, 1882 – August 24, 1967) was an American industrialist who became known as the father of modern American shipbuilding.  He established the Kaiser Shipyards, which built Liberty ships during World War II, after which he formed Kaiser Aluminum and Kaiser Steel.',
    );
    const ventures = chunk(
      'Kaiser Ventures',
      'Kaiser Ventures (formerly Kaiser Steel) corporation, headquartered in Ontario, California.  It was founded by Henry J. Kaiser to provide steel plate for the Pacific Coast shipbuilding industry, which expanded during World War II.',
    );
    const named = answer(
      'Kaiser Ventures corporation was founded by an American industrialist who became known as the father of modern American shipbuilding?',
      [ventures, kaiser],
    ).split('\n')[0];
    assert.match(named, /^Henry J. Kaiser (?:\[E\d\])*\[E2\](?:\[E\d\])*$/); // the passage naming him ("founded by Henry J. Kaiser") may be cited too
    assert.equal(analyseQuestion('What was the Roud Folk Song Index of the nursery rhyme?').answerType, 'number');
  });

  it('reads the name a question asks for when "what" comes last, and the years it is dated by', () => {
    assert.equal(
      analyseQuestion('The 1996 loose adaptation of William Shakespeare\'s "Romeo & Juliet" written by James Gunn is called what?').focus,
      'loose adaptation',
    );
    assert.equal(analyseQuestion('The team competes in the league cup known as what for sponsorship reasons?').focus, 'league cup');
    const conference = chunk(
      'America East Conference',
      'The America East Conference is a collegiate athletic conference affiliated with the NCAA Division I.  The conference was known as the Eastern College Athletic Conference-North from 1979 to 1988 and the North Atlantic Conference from 1988 to 1996.',
    );
    const question = "What was the name from 1988 to 1996 of the conference the Vermont Catamounts men's soccer team competes in?";
    assert.equal(analyseQuestion(question).focus, 'conference');
    const team = chunk(
      "Vermont Catamounts men's soccer",
      "The Vermont Catamounts men's soccer team represents the University of Vermont.  The Catamounts compete in the America East Conference.",
    );
    assert.match(answer(question, [team, conference]).split('\n')[0], /^North Atlantic Conference (?:\[E1\])?\[E2\]$/);
  });

  it('supports the answer from every passage the question names by its title', () => {
    const song = chunk(
      'Shut Up, Make Love',
      '"Shut Up, Make Love" is a song by American rock band Poison; released in 2000, it was the first single from their 2000 album.',
    );
    const band = chunk(
      'Poison (American band)',
      'Poison is an American glam metal band that achieved commercial success in the mid-1980s. The band has sold over 45 million records worldwide.',
    );
    const text = answer('When was Poison\'s album "Shut Up, Make Love" released?', [song, band]);
    assert.equal(text.split('\n')[0], '2000 [E1]');
    assert.ok(
      text.split('\n').some((line) => line.startsWith('Poison is an American glam metal band') && line.endsWith('[E2]')),
      text,
    );
  });

  it('answers "what county seat" with a town, and "which airplane" with no country', () => {
    const lempster = chunk(
      'East Lempster, New Hampshire',
      'East Lempster is an unincorporated community in the town of Lempster in Sullivan County, New Hampshire, United States.',
    );
    const sullivan = chunk(
      'Sullivan County, New Hampshire',
      'Sullivan County is a county in the U.S. state of New Hampshire. Its county seat is Newport.',
    );
    // "the county where East Lempster … is located" is a hop: its passage may be cited beside the answer's
    assert.match(
      answer('What is the county seat of the county where East Lempster, New Hampshire is located?', [lempster, sullivan]).split('\n')[0],
      /^Newport (?:\[E1\])?\[E2\]$/,
    );
  });

  it('does not answer a bridge question with the bridge, even written with more names', () => {
    const kasper = chunk(
      'Kasper Schmeichel',
      'Kasper Peter Schmeichel (born 5 November 1986) is a Danish professional footballer. He is the son of former Manchester United goalkeeper Peter Schmeichel.',
    );
    const peter = chunk(
      'Peter Schmeichel',
      "Peter Bolesław Schmeichel MBE (born 18 November 1963) is a Danish former professional footballer who played as a goalkeeper, and was voted the IFFHS World's Best Goalkeeper in 1992 and 1993.",
    );
    const text = answer(
      'What was the father of Kasper Schmeichel voted to be by the IFFHS in 1992?',
      [kasper, peter],
      [['Peter Schmeichel', [peter]]],
    );
    assert.match(text.split('\n')[0], /World's Best Goalkeeper (?:\[E\d\])*\[E2\](?:\[E\d\])*$/, text);
  });

  it('does not take the words of a song title for a person', () => {
    const song = chunk(
      'To Know Him Is to Love Him',
      '"To Know Him Is to Love Him" is a song written by Phil Spector, inspired by words on his father\'s tombstone. It was the first track on the box set "Back to Mono".',
    );
    assert.equal(
      answer(
        'Who is the writer of this song that was inspired by words on a tombstone and was the first track on the box set Back to Mono?',
        [song],
      ).split('\n')[0],
      'Phil Spector [E1]',
    );
  });

  it('answers about the thing a relative clause describes, not with it', () => {
    const album = chunk(
      '2014 S/S',
      "2014 S/S is the debut album of South Korean group WINNER. It was released on August 12, 2014 by the group's record label.",
    );
    const group = chunk(
      'Winner (band)',
      'Winner, often stylized as WINNER, is a South Korean boy group formed in 2013 by YG Entertainment and debuted in 2014.',
    );
    assert.equal(
      analyseQuestion('2014 S/S is the debut album of a South Korean boy group that was formed by who?').described,
      'south korean boy group',
    );
    assert.equal(
      analyseQuestion('The 2017–18 season will be a year in which the team competes in the league cup known as what?').described,
      undefined,
    );
    assert.match(
      answer('2014 S/S is the debut album of a South Korean boy group that was formed by who?', [album, group]).split('\n')[0],
      /^YG Entertainment \[E2\]$/,
    );
  });

  it("reads HotpotQA's comparison shapes: no comma, a noun before a name, a shared value, a measure", () => {
    assert.deepEqual(analyseQuestion("Which magazine was started first Arthur's Magazine or First for Women?").candidates, [
      "Arthur's Magazine",
      'First for Women',
    ]);
    assert.deepEqual(analyseQuestion('Do the drinks Marlowe and Tessaquilla both contain rum?').candidates, ['Marlowe', 'Tessaquilla']);
    const busby = chunk(
      'Matt Busby',
      'Sir Alexander Matthew Busby (26 May 1909 – 20 January 1994) was a Scottish football player and manager.',
    );
    const ferguson = chunk(
      'Alex Ferguson',
      'Sir Alexander Chapman Ferguson (born 31 December 1941) is a Scottish former football manager and player.',
    );
    const shared = answer('What nationality were both Matt Busby and Alex Ferguson?', [busby, ferguson]).split('\n');
    assert.equal(shared[0], 'Scottish');
    assert.equal(answer('Were Matt Busby and Alex Ferguson both Scottish?', [busby, ferguson]).split('\n')[0], 'Yes');
    const empire = chunk(
      'Empire State Building',
      'The Empire State Building is a 102-story skyscraper in Midtown Manhattan. It has a roof height of 1,250 feet.',
    );
    const bank = chunk(
      'Bank of America Tower',
      'The Bank of America Tower is a 55-story skyscraper in Midtown Manhattan. It is 1,200 feet tall.',
    );
    assert.equal(
      analyseQuestion('Which is taller, the Empire State Building or the Bank of America Tower?').comparison?.attribute,
      'height tall',
    );
    assert.equal(
      answer('Which is taller, the Empire State Building or the Bank of America Tower?', [empire, bank]).split('\n')[0],
      'Empire State Building',
    );
  });

  it('answers what two options share: a profession, a kind of thing, a country', () => {
    const cummings = chunk(
      'Jim Cummings',
      'James Jonah Cummings (born November 3, 1952) is an American voice actor and singer, who has appeared in almost 400 roles.',
    );
    const higgins = chunk(
      'Kate Higgins',
      'Catherine Davis "Kate" Higgins (born August 16, 1969) is an American voice actress, singer and jazz pianist.',
    );
    assert.equal(
      answer('What occupation do Jim Cummings and Kate Higgins share?', [cummings, higgins]).split('\n')[0],
      `voice actor [E1][E2]`,
    );
    const maslow = chunk(
      'Abraham Maslow',
      'Abraham Harold Maslow (April 1, 1908 – June 8, 1970) was an American psychologist who was best known for a hierarchy of needs.',
    );
    const coren = chunk('Stanley Coren', 'Stanley Coren (born 1942) is a psychology professor and neuropsychological researcher.');
    assert.match(
      answer('What profession do Abraham Maslow and Stanley Coren have in common?', [maslow, coren]),
      /^psychologist \[E\d\]\[E\d\]\n/,
    );
    const hazlewood = chunk(
      'Lee Hazlewood',
      'Barton Lee Hazlewood (July 9, 1929 – August 4, 2007) was an American country and pop singer, songwriter, and record producer.',
    );
    const sinatra = chunk('Nancy Sinatra', 'Nancy Sandra Sinatra (born June 8, 1940) is an American singer and actress.');
    // a wh-question about both is answered with the thing, never with yes or no
    assert.match(
      answer('What type of musician are both Lee Hazlewood and Nancy Sinatra?', [hazlewood, sinatra]),
      /^singer \[E\d\]\[E\d\]\n/,
    );
    const fermi = chunk(
      'Enrico Fermi',
      'Enrico Fermi (29 September 1901 – 28 November 1954) was an Italian physicist and the creator of the first nuclear reactor.',
    );
    const rovelli = chunk('Carlo Rovelli', 'Carlo Rovelli (born 3 May 1956) is an Italian theoretical physicist and writer.');
    assert.match(answer('Which country are Enrico Fermi and Carlo Rovelli both from?', [fermi, rovelli]), /^Italy \[E\d\]\[E\d\]\n/);
    // what both are does not answer what both did or won
    assert.doesNotMatch(answer('What prize did both Enrico Fermi and Carlo Rovelli receive?', [fermi, rovelli]), /^(?:physicist|Yes|No)\b/);
  });

  it('compares measures in one unit: an area with an area, feet with metres', () => {
    const brown = chunk(
      'Brown Lake',
      'Brown Lake is a protected area in Kansas. The lake is 62 acres (0.25 km²) in area and up to 13 feet (4 m) deep.',
    );
    const shawnee = chunk(
      'Shawnee Lake',
      'Shawnee Lake is in northern Kansas. It is a 135 acre surface area lake with a maximum depth of 25 ft.',
    );
    assert.equal(analyseQuestion('Which lake is larger, Brown Lake or Shawnee Lake?').comparison?.attribute, 'area size');
    const larger = answer('Which lake is larger, Brown Lake or Shawnee Lake?', [brown, shawnee]).split('\n');
    assert.deepEqual(larger.slice(0, 2), ['Shawnee Lake', 'Brown Lake: 62 acres [E1]; Shawnee Lake: 135 acre [E2]']);
    const deeper = answer('Which lake is deeper, Brown Lake or Shawnee Lake?', [brown, shawnee]).split('\n');
    assert.deepEqual(deeper.slice(0, 2), ['Shawnee Lake', 'Brown Lake: 13 feet [E1]; Shawnee Lake: 25 ft [E2]']);
    // 40 feet is 12.19 m: the lake 15 m deep is deeper, though 40 > 15
    const north = chunk('North Pond', 'North Pond is a glacial lake. It is 40 feet deep at its centre.');
    const south = chunk('South Pond', 'South Pond is a reservoir. It has a maximum depth of 15 m.');
    assert.equal(answer('Which is deeper, North Pond or South Pond?', [north, south]).split('\n')[0], 'South Pond');
  });

  it('reads a life\'s two dates: the birth for "born", the death for "died"', () => {
    assert.deepEqual(
      datesIn('Franco Corelli (8 April 1921 – 29 October 2003) was an Italian tenor.').map((d) => d.text),
      ['8 April 1921', '29 October 2003'],
    );
    assert.deepEqual(
      datesIn('The 1921–29 period.').map((d) => d.text),
      ['1921–29'],
    );
    const corelli = chunk(
      'Franco Corelli',
      'Franco Corelli (8 April 1921 – 29 October 2003) was an Italian tenor who had a major international opera career between 1951 and 1976.',
    );
    assert.equal(answer('In what year was the tenor Franco Corelli born?', [corelli]).split(' [')[0], '1921');
    assert.equal(answer('When did the tenor Franco Corelli die?', [corelli]).split(' [')[0], '29 October 2003');
    // the question describes the subject by what a later sentence says, which gives another date
    const golfer = chunk(
      'Roberto De Vicenzo',
      'Roberto De Vicenzo (14 April 1923 – 1 June 2017) was a professional golfer from Argentina. He won more than 230 tournaments worldwide in his career including most famously the 1967 Open Championship.',
    );
    assert.equal(
      answer('When did the Argentine golfer who won more than 230 tournaments worldwide die?', [golfer]).split(' [')[0],
      '1 June 2017',
    );
  });

  it('answers "which city" with a city, not the institution in it, and never with the question\'s own words', () => {
    const team = chunk(
      "2011–12 VCU Rams men's basketball team",
      "The 2011–12 VCU Rams men's basketball team represented Virginia Commonwealth University during the 2011–12 NCAA Division I men's basketball season.",
    );
    const vcu = chunk(
      'Virginia Commonwealth University',
      'Virginia Commonwealth University (VCU) is a public research university located in Richmond, Virginia.',
    );
    assert.equal(
      answer("In which city is the university represented by the 2011–12 VCU Rams men's basketball team located?", [team, vcu]).split(
        ' [',
      )[0],
      'Richmond',
    );
    const champ = chunk(
      'Champ Bailey',
      'Roland "Champ" Bailey Jr. (born June 22, 1978) is a former American football cornerback in the National Football League (NFL). He was drafted by the Washington Redskins in the first round of the 1999 NFL Draft.',
    );
    const boss = chunk(
      'Boss Bailey',
      'Rodney "Boss" Bailey (born October 14, 1979) is a former American football linebacker who played in the National Football League. He was originally drafted by the Detroit Lions in the second round of the 2003 NFL Draft. He is the brother of Champ Bailey.',
    );
    assert.equal(answer('Which NFL team drafted the brother of Champ Bailey in 2003?', [champ, boss]).split(' [')[0], 'Detroit Lions');
    const roster = chunk('Boss Bailey career', 'Bailey joined the NFL in 2003. His NFL team was the Detroit Lions.');
    assert.equal(answer('Which NFL team did Boss Bailey join?', [roster]).split(' [')[0], 'Detroit Lions');
  });

  it('follows "the father of X" to the parent X\'s passage names ("he is the son of …"), and keeps a label\'s "Records"', () => {
    const kasper = chunk(
      'Kasper Schmeichel',
      'Kasper Peter Schmeichel (born 5 November 1986) is a Danish professional footballer. He is the son of former Danish international goalkeeper Peter Schmeichel.',
    );
    const peter = chunk(
      'Peter Schmeichel',
      'Peter Bolesław Schmeichel (born 18 November 1963) is a Danish former professional footballer.',
    );
    assert.equal(analyseQuestion('When was the father of Kasper Schmeichel born?').chain[0]?.relation, 'father');
    assert.equal(answer('When was the father of Kasper Schmeichel born?', [kasper, peter]).split(' [')[0], '18 November 1963');
    const album = chunk(
      'Delirium (album)',
      'Delirium is the third studio album by English singer Ellie Goulding, released on 6 November 2015 by Polydor Records.',
    );
    assert.equal(answer('Which record label released the album Delirium?', [album]).split(' [')[0], 'Polydor Records');
    const county = chunk(
      'Brown County, Kansas',
      'Brown County (county code BR) is a county located in the U.S. state of Kansas. As of the 2010 census, the county population was 9,984. Its county seat and most populous city is Hiawatha.',
    );
    assert.equal(answer('What is the county seat of Brown County, Kansas?', [county]).split(' [')[0], 'Hiawatha');
  });

  it('keeps middle initials and abbreviations inside names read from passages', () => {
    assert.deepEqual(
      nameSpans('It was founded by Henry J. Kaiser to provide steel plate.').map((s) => s.text),
      ['Henry J. Kaiser'],
    );
    assert.deepEqual(
      nameSpans('Ken St. Andre designed it. He lived in St. Louis.').map((s) => s.text),
      ['Ken St. Andre', 'St. Louis'],
    );
    assert.deepEqual(
      nameSpans('He moved to the U.S. He was born in Ohio.').map((s) => s.text),
      ['U.S.', 'Ohio'],
    );
  });

  it('answers "Who directed X?" with the name after "directed by"', () => {
    assert.equal(analyseQuestion('Who is the founder of Kaiser Ventures?').agentOf, 'founded');
    const tromeo = chunk(
      'Tromeo and Juliet',
      'Tromeo and Juliet is a 1996 American independent romantic comedy film and a loose adaptation of William Shakespeare\'s "Romeo & Juliet" from Troma Entertainment. The film was directed by Lloyd Kaufman from a screenplay by Kaufman and James Gunn.',
    );
    assert.equal(
      answer('Who directed the 1996 loose adaptation of Romeo & Juliet written by James Gunn?', [tromeo]).split(' [')[0],
      'Lloyd Kaufman',
    );
  });

  it('answers a bridge question from the passage the named one leads to, not from the named one', () => {
    const hefferline = chunk(
      'Ralph Hefferline',
      'Ralph Franklin Hefferline (15 February 1910 in Muncie, Indiana – 16 March 1974) was a psychology professor at Columbia University.',
    );
    const columbia = chunk(
      'Columbia University',
      'Columbia University, established in 1754, is a private Ivy League research university in Upper Manhattan, New York City.',
    );
    assert.equal(
      answer('In what year was the university where Ralph Hefferline was a psychology professor established?', [
        hefferline,
        columbia,
      ]).split(' [')[0],
      '1754',
    );
  });

  it('follows "X is a play by a playwright born …" from X\'s passage to each name it gives', () => {
    const play = chunk('Three Men on a Horse', 'Three Men on a Horse is a play by George Abbott and John Cecil Holm.');
    const abbott = chunk(
      'George Abbott',
      'George Francis Abbott (June 25, 1887 – January 31, 1995) was an American theater producer and director, playwright and screenwriter.',
    );
    const wynne = chunk('Michael Wynne (playwright)', 'Michael Wynne is an English playwright born in Birkenhead on 3 August 1972.');
    const analysis = analyseQuestion('Three Men on a Horse is a play by a playwright born in which year?');
    assert.deepEqual(
      analysis.chain.map((hop) => [hop.entity, hop.relation, hop.terminal]),
      [['Three Men on a Horse', 'play', false]],
    );
    assert.equal(
      answer('Three Men on a Horse is a play by a playwright born in which year?', [wynne, play, abbott]).split(' [')[0],
      '1887',
    );
  });

  it('follows "X is in a county that has …" from the opening name to the county, and answers a weak number said of it', () => {
    const question = 'Harrow Creek Lake is in a county that has a population of how many inhabitants?';
    assert.deepEqual(
      analyseQuestion(question).chain.map((hop) => [hop.entity, hop.phrase, hop.rest]),
      [['Harrow Creek Lake', 'the county', '{} that has a population of how many inhabitants?']],
    );
    const lake = chunk('Harrow Creek Lake', 'Harrow Creek Lake is a protected area in Penmore County, Kansas in the United States.');
    const county = chunk(
      'Penmore County, Kansas',
      'Penmore County is a county located in the U.S. state of Kansas. As of the 2010 census, the county population was 9,984.',
    );
    assert.equal(answer(question, [lake, county]).split(' [')[0], '9,984');
    // "the 2010 census" is a year, not a count of censuses; "a 1,800-seat arena" is a count
    assert.deepEqual(
      quantitiesIn('As of the 2010 census, the county population was 9,984.').map((q) => q.isYear),
      [true, false],
    );
    assert.deepEqual(
      quantitiesIn('Case Gym is a 1,800-seat arena.').map((q) => q.isYear),
      [false],
    );
    // without the county's passage: what was found, and what is missing
    const partial = answer(question, [lake]);
    assert.match(
      partial,
      /^Not found in the documents: the answer to "Penmore County that has a population of how many inhabitants\?" Partial answer: the county is Penmore County \[E\d+\]/,
    );
  });

  it('reads "the city in which X is located" as one hop, answers from "Name, Region", and takes the number of the year asked', () => {
    const question = 'According to the 2001 census, what was the population of the city in which Marsh Hollow is located?';
    const [hop] = analyseQuestion(question).chain;
    assert.deepEqual(
      [hop.entity, hop.phrase, hop.rest],
      ['Marsh Hollow', 'the city in which Marsh Hollow is located', 'According to the 2001 census, what was the population of {}?'],
    );
    const hamlet = chunk(
      'Marsh Hollow',
      'Marsh Hollow is a hamlet in the civil parish of Ferrow in the Dunmore district of Eastshire, England.',
    );
    const town = chunk(
      'Dunmore, Eastshire',
      'Dunmore is a market town and inland port in Eastshire, England. The borough had a total population of 66,900 at the 2011 census, while the town itself had a population of 35,124 at the 2001 census.',
    );
    const parish = chunk(
      'Ferrow',
      'Ferrow is a village and civil parish located in Eastshire, England. According to the county council it is the oldest parish in the district; the nearest city is Eastport.',
    );
    assert.equal(answer(question, [hamlet, town, parish]).split(' [')[0], '35,124');
    assert.equal(answer(question.replace('2001', '2011'), [hamlet, town, parish]).split(' [')[0], '66,900');
  });

  it('answers "known as what …?" with the name given after "known as", the one dated by the years asked', () => {
    const question =
      'The 2017–18 Harwick Town F.C. season will be a year in which the team competes in the league cup known as what for sponsorship reasons?';
    assert.equal(analyseQuestion(question).namedAs, 'known as');
    const season = chunk(
      '2017–18 Harwick Town F.C. season',
      "The 2017–18 season is Harwick Town's 86th year in existence and their first back in League One, after being relegated the previous season.  Along with competing in the league, the club will also participate in the FA Cup, Northern Cup and EFL Trophy.",
    );
    const delmar = chunk(
      'Delmar League Cup',
      'The Delmar League Cup, or commonly known as the First Citizens Cup for sponsorship reasons, is the league cup style football competition open for Delmar teams.',
    );
    const northern = chunk(
      'Northern Cup',
      "The Northern Cup (referred to historically, and colloquially, as simply the League Cup), currently known as the Marrow Cup for sponsorship reasons, is an annual knockout football competition in men's domestic football.",
    );
    assert.equal(answer(question, [season, delmar, northern]).split(' [')[0], 'Marrow Cup');
    const team = chunk(
      "Harlow Hawks men's soccer",
      "The Harlow Hawks men's soccer team represents the University of Harlow. The school's team currently competes in the Lakeland East Conference.",
    );
    const conference = chunk(
      'Lakeland East Conference',
      'The Lakeland East Conference is a collegiate athletic conference. The conference was known as the Eastern College Athletic Conference-North from 1979 to 1988 and the North Coast Conference from 1988 to 1996.',
    );
    const formerly = (years: string) =>
      answer(`The Harlow Hawks men's soccer team currently competes in a conference that was formerly known as what from ${years}?`, [
        team,
        conference,
      ]).split(' [')[0];
    assert.equal(formerly('1988 to 1996'), 'North Coast Conference');
    assert.equal(formerly('1979 to 1988'), 'Eastern College Athletic Conference-North');
  });

  it('follows "the writer of X" to the name after "written by", not to the singer the sentence also names', () => {
    const song = chunk('Walking Shoes Blues', '"Walking Shoes Blues" is a hit song written by Carl Mandry and recorded by Nina Sorrel.');
    const singer = chunk('Nina Sorrel', 'Nina Sandra Sorrel (born June 8, 1940) is an American singer and actress.');
    const writer = chunk(
      'Carl Mandry',
      'Carl Mandry (July 9, 1929 – August 4, 2007) was an American country singer, songwriter, and record producer.',
    );
    assert.equal(answer('In what year was the writer of Walking Shoes Blues born?', [song, singer, writer]).split(' [')[0], '1929');
    assert.equal(answer('In what year was the singer of Walking Shoes Blues born?', [song, writer, singer]).split(' [')[0], '1940');
  });

  it('reads the whole passage a hop leads to, and answers "what government position" with an office', () => {
    const film = chunk('Tell Me Twice', 'Tell Me Twice is a 1945 American comedy film starring then 17-year-old Nora Vale as Ada Marsh.');
    const actress = chunk(
      'Nora Vale',
      "Nora Vale Black (April 23, 1928 – February 10, 2014) was an American actress, singer, dancer, and diplomat who was Hollywood's number one box-office draw as a child actress from 1935 to 1938.  As an adult, she was named United States ambassador to Ruritania and also served as Chief of Protocol of the United States.",
    );
    const character = chunk(
      'Ada Marsh',
      'Ada Marsh is a fictional teenage girl, the heroine of a series of short stories. On radio the role was held by several actresses, among them one who later took a government position.',
    );
    assert.equal(
      answer('What government position was held by the woman who portrayed Ada Marsh in the film Tell Me Twice?', [
        film,
        actress,
        character,
      ]).split(' [')[0],
      'Chief of Protocol of the United States',
    );
  });

  it('reads "under which United States Vice President?" as what is asked, and a possessive name as naming its owner', () => {
    const question = 'Ada Wren served as the secretary of the Committee on Roads in the Upper Province under which Sarnian Vice President?';
    const analysis = analyseQuestion(question);
    assert.deepEqual([analysis.chain, analysis.answerType], [[], 'person']);
    const sentence = "She served as secretary of Upper Province Governor Martin Harlow's Committee on Roads in the Upper Province.";
    assert.ok(
      nameSpans(sentence).some((span) => span.text === 'Martin Harlow'),
      JSON.stringify(nameSpans(sentence).map((span) => span.text)),
    );
    assert.ok(nameSpans("He was voted the IFFHS World's Best Goalkeeper.").some((span) => span.text === "IFFHS World's Best Goalkeeper"));
    const wren = chunk('Ada Wren', `Ada Wren is a Sarnian civil servant. ${sentence}`);
    const harlow = chunk(
      'Martin Harlow',
      'Martin Harlow (1908 – 1979) was a Sarnian businessman and politician. He served as the 41st Vice President of Sarnia from 1974 to 1977.',
    );
    assert.equal(answer(question, [wren, harlow]).split(' [')[0], 'Martin Harlow');
  });

  it('offers each of two coordinated names ("World War I and World War II"), and the rest of the question picks one', () => {
    const memorial = chunk(
      'Harwick Gas Works War Memorial',
      'The Harwick Gas Works War Memorial commemorates the fallen of World War I and World War II who had been employed by the Harwick Gas Company.',
    );
    const second = chunk('World War II casualties', 'World War II fatality statistics vary, with estimates of over 60 million casualties.');
    const first = chunk(
      'World War I casualties',
      'The total number of military and civilian casualties in World War I was about 40 million.',
    );
    assert.equal(
      answer('The Harwick Gas Works War Memorial commemorates the fallen of which war, that had over 60 million casualties?', [
        memorial,
        first,
        second,
      ]).split(' [')[0],
      'World War II',
    );
    const company = 'Which company founded it?';
    assert.deepEqual(
      candidateSpans('It was founded by Procter and Gamble.', {
        analysis: analyseQuestion(company),
        questionTerms: new Set(tokenizer.terms(company)),
        stem: (w: string) => tokenizer.terms(w)[0] ?? w,
      })
        .map((span) => span.text)
        .filter((text) => text.includes('Procter')),
      ['Procter and Gamble'],
    );
  });

  it('follows "the album that includes X\'s single Y" from Y, by the sentence that says the relation, to a label written "Warner Bros.  Records"', () => {
    const question = "Which record label released the album that includes Ada Wren's single Lantern Eyes?";
    assert.deepEqual(analyseQuestion(question).entities, ['Ada Wren', 'Lantern Eyes']);
    assert.equal(analyseQuestion(question).chain[0].entity, 'Lantern Eyes');
    const song = chunk(
      'Lantern Eyes (Ada Wren song)',
      '"Lantern Eyes" is a song recorded by American country music artist Ada Wren featuring Nora Vale. It was released in April 2014 as the fifth single from her seventh studio album, "Based on a Sad Story".',
    );
    const album = chunk(
      'Based on a Sad Story',
      'Based on a Sad Story is the eighth studio album by American country music artist Ada Wren. It was released on March 26, 2013 via Warner Bros.  Records.',
    );
    const singer = chunk('Nora Vale', 'Nora Vale is an American singer signed to Sunhouse Records.');
    assert.equal(answer(question, [song, album, singer]).split(' [')[0], 'Warner Bros. Records');
  });

  it('names the war a partial answer leads to when "the civil war" is asked of it', () => {
    const question = 'Ivan Dorn was defeated by the Reds in the course of a civil war that ended when?';
    const dorn = chunk(
      'Ivan Dorn',
      'Ivan Dorn was a Sarnian general who was defeated by the Reds and the Sarnian Communist Party during the Sarnian Civil War.',
    );
    assert.match(answer(question, [dorn]), /Partial answer: the civil war is Sarnian Civil War \[E\d+\]/);
  });

  it('follows "the Harlow administration" to Martin Harlow, and names no department as the president', () => {
    const question = 'Ada Wren was Minister of Roads during the administration of a president who was born in what year?';
    const wren = chunk(
      'Ada Wren',
      'Ada Wren is a Sarnian politician. She was Minister of Roads in the Department of Transport during the Harlow administration.',
    );
    const harlow = chunk('Martin Harlow', 'Martin Harlow (born 1931) is a Sarnian politician who served as president.');
    assert.equal(answer(question, [wren, harlow]).split(' [')[0], '1931');
    assert.equal(answer(question, [wren]).split('\n')[0], `Not found in the documents: an answer to "${question}".`);
  });

  it("ends a relative clause at the sentence's own verb, and keeps a court case one name", () => {
    const [hop] = analyseQuestion('The football manager who recruited Tom Ashby managed Carlton Rovers during what timeframe?').chain;
    assert.deepEqual(
      [hop.entity, hop.phrase, hop.rest],
      ['Tom Ashby', 'The football manager who recruited Tom Ashby', '{} managed Carlton Rovers during what timeframe?'],
    );
    assert.equal(
      analyseQuestion('The actress who starred in Lanterns directed by Ada Wren was born when?').chain[0].phrase,
      'The actress who starred in Lanterns directed by Ada Wren',
    );
    assert.deepEqual(analyseQuestion('Rostker v. Goldberg held that the practice of what was constitutional?').entities, [
      'Rostker v. Goldberg',
    ]);
  });

  it('follows "the star of the 1945 film noir X" to X, and asks the nationality of the one it leads to', () => {
    const [hop] = analyseQuestion('When did the star of the 1945 film noir Johnny Angel die?').chain;
    assert.deepEqual([hop.entity, hop.relation, hop.rest], ['Johnny Angel', 'star', 'When did {} die?']);
    const series = chunk('I"s', 'I"s (アイズ , Aizu ) is a Japanese manga series written and illustrated by Masakazu Katsura.');
    const artist = chunk(
      'Masakazu Katsura',
      'Masakazu Katsura (born December 10, 1962) is a Japanese manga artist, known for several works of manga.',
    );
    assert.equal(
      answer('What nationality is the manga artist who wrote and illustrated I"s?', [series, artist]).split(' [')[0],
      'Japanese',
    );
  });

  it('reads two demonyms together as one nationality, and a demonym is no hop to follow', () => {
    const film = chunk('Big Stone Gap (film)', 'Big Stone Gap is a 2014 American romantic comedy film directed by Adriana Trigiani.');
    const director = chunk(
      'Adriana Trigiani',
      'Adriana Trigiani is an Italian American best-selling author of sixteen books, television writer, film director, and entrepreneur.',
    );
    assert.equal(
      answer('What nationality is the director of the romantic comedy Big Stone Gap?', [film, director]).split(' [')[0],
      'Italian American',
    );
  });

  it('supports a direct answer with its own sentence and the passages the question names before any other', () => {
    const question = 'What was the name of the 1996 loose adaptation of William Shakespeare\'s "Romeo & Juliet" written by James Gunn?';
    const film1954 = chunk(
      'Romeo and Juliet (1954 film)',
      "Romeo and Juliet is a 1954 film adaptation of William Shakespeare's play of the same name.",
    );
    const tromeo = chunk(
      'Tromeo and Juliet',
      'Tromeo and Juliet is a 1996 American independent film and a loose adaptation of William Shakespeare\'s "Romeo & Juliet" from Troma Entertainment. The film was directed by Lloyd Kaufman.',
    );
    const gunn = chunk(
      'James Gunn',
      'James Gunn (born August 5, 1966) is an American filmmaker. He began his career as a screenwriter in the mid-1990s, starting at Troma Entertainment with "Tromeo and Juliet" (1996).',
    );
    const lines = answer(question, [film1954, tromeo, gunn]).split('\n');
    assert.match(lines[0], /^Tromeo and Juliet \[E\d\]$/);
    const cited = lines.slice(1).map((line) => /\[(E\d+)\]$/.exec(line)?.[1]);
    assert.deepEqual(new Set(cited.slice(0, 2)), new Set(['E2', 'E3']), lines.join('\n'));
  });

  it('reads the options of "Between A and B, …", "A or B, who …", "the younger of A and B" and "Do A and B share a …?"', () => {
    const cases: Array<[string, string[], string, boolean]> = [
      ['Between Ada Wren and Martin Harlow, who was born first?', ['Ada Wren', 'Martin Harlow'], 'min', true],
      ['Ada Wren or Martin Harlow, who is older?', ['Ada Wren', 'Martin Harlow'], 'min', true],
      ['Of Case Gym and the Harlow Arena, which opened first?', ['Case Gym', 'Harlow Arena'], 'min', true],
      ['Who is the younger of Ada Wren and Martin Harlow?', ['Ada Wren', 'Martin Harlow'], 'max', true],
      ['Which was formed more recently, Winner or Madtown?', ['Winner', 'Madtown'], 'max', true],
      ['Do Ada Wren and Martin Harlow share a nationality?', ['Ada Wren', 'Martin Harlow'], 'same', false],
      ['Winner and Madtown, which was formed first?', ['Winner', 'Madtown'], 'min', true],
      ['Which of Ada Wren and Martin Harlow was born first?', ['Ada Wren', 'Martin Harlow'], 'min', true],
      ['Which of the two bands, Harlow Sound or Wren Rock, was formed earlier?', ['Harlow Sound', 'Wren Rock'], 'min', true],
    ];
    for (const [question, options, direction, byDate] of cases) {
      const analysis = analyseQuestion(question);
      assert.deepEqual(
        [analysis.candidates, analysis.comparison?.direction, analysis.comparison?.byDate],
        [options, direction, byDate],
        question,
      );
    }
    assert.equal(analyseQuestion('Do Ada Wren and Martin Harlow share a nationality?').comparison?.attribute, 'nationality');
    // "from Canada" is said as "Canadian"; "Which one …" asks nothing of "one"
    const sound = chunk('Harlow Sound', 'Harlow Sound is a Canadian synthpop band formed in 1988 by Barry Hale.');
    const rock = chunk('Wren Rock', 'Wren Rock is an English rock band formed in Abingdon in 1985. It is one of the best-selling bands.');
    assert.equal(answer('Which band is from Canada, Harlow Sound or Wren Rock?', [rock, sound]).split('\n')[0], 'Harlow Sound');
    assert.equal(answer('Which one is from England, Harlow Sound or Wren Rock?', [sound, rock]).split('\n')[0], 'Wren Rock');
    assert.equal(answer('Which one is a Canadian band, Harlow Sound or Wren Rock?', [rock, sound]).split('\n')[0], 'Harlow Sound');
    assert.equal(analyseQuestion('Do Ada Wren and Martin Harlow share a nationality?').type, 'yes-no');
  });

  it('keeps abbreviations inside names: a question is not split at "St."', () => {
    const analysis = analyseQuestion('Who was born first, Ken St. Andre or Jon St. Andre?');
    assert.deepEqual(analysis.candidates, ['Ken St. Andre', 'Jon St. Andre']);
    assert.equal(analysis.comparison?.byDate, true);
    assert.deepEqual(analysis.entities, ['Ken St. Andre', 'Jon St. Andre']);
  });

  it('answers "Is X a Y?" from the passage about X, not from another passage that says Y', () => {
    const hvidt = chunk('Kasper Hvidt', 'Kasper Hvidt (born 6 February 1976 in Copenhagen) is a Danish retired handball goalkeeper.');
    const schmeichel = chunk('Kasper Schmeichel', 'Kasper Peter Schmeichel (born 5 November 1986) is a Danish professional footballer.');
    assert.equal(answer('Is Kasper Hvidt a footballer?', [schmeichel, hvidt]).split('\n')[0], 'No');
    assert.equal(answer('Is Kasper Schmeichel a footballer?', [hvidt, schmeichel]).split('\n')[0], 'Yes');
  });

  it('says no to "Is X an American …?" when the passage gives another nationality', () => {
    const doe = chunk('Jane Doe', 'Jane Doe (born 1970) is a Canadian actress.');
    assert.equal(answer('Is Jane Doe an American actress?', [doe]).split('\n')[0], 'No');
    assert.equal(answer('Is Jane Doe a Canadian actress?', [doe]).split('\n')[0], 'Yes');
  });

  it('keeps the words after the noun asked for in a name', () => {
    const wbo = chunk(
      'World Boxing Organization',
      'The World Boxing Organization is recognized by the International Boxing Hall of Fame as one of the four major world championship groups.',
    );
    assert.match(
      answer('The World Boxing Organization is recognized by what larger Hall of Fame?', [wbo]).split('\n')[0],
      /^International Boxing Hall of Fame \[E1\]$/,
    );
  });

  it('supports a two-hop answer from the passage the first hop leads to', () => {
    const question = 'What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?';
    const film = chunk(
      'Kiss and Tell (1945 film)',
      'Kiss and Tell is a 1945 American comedy film starring then 17-year-old Shirley Temple as Corliss Archer.',
    );
    const temple = chunk(
      'Shirley Temple',
      'Shirley Temple Black was an American actress, singer, dancer, businesswoman, and diplomat. As a diplomat she served as Chief of Protocol of the United States.',
    );
    const posts = chunk('Public office', 'A government position is a post held by a man or woman in public service.');
    const text = answer(question, [film, posts], [['Shirley Temple', [temple]]]);
    assert.ok(
      text.split('\n').some((line) => line.startsWith('Shirley Temple Black was') && line.endsWith('[E3]')),
      text,
    );
  });

  it('answers how-to questions with the command or code, and list questions with the items', () => {
    const install = chunk(
      'Install',
      'Install with pip:\n\n$ pip install httpx\n\nOr, to include the optional HTTP/2 support, use:\n\n$ pip install httpx[http2]',
    );
    const howTo = answer('How do I install httpx with HTTP/2 support?', [install]);
    assert.ok(howTo.startsWith('```\n$ pip install httpx[http2]\n``` [E1]'), howTo);
    const rules = chunk(
      'Ownership',
      "First, let's take a look at the ownership rules. Keep these rules in mind:\n\n- Each value in Rust has an owner.\n- There can only be one owner at a time.\n- When the owner goes out of scope, the value will be dropped.",
    );
    const list = answer('What are the ownership rules in Rust?', [rules]).split('\n');
    assert.deepEqual(list.slice(0, 3), [
      '- Each value in Rust has an owner. [E1]',
      '- There can only be one owner at a time. [E1]',
      '- When the owner goes out of scope, the value will be dropped. [E1]',
    ]);
    const timeouts = chunk(
      'Timeouts',
      'There are four different types of timeouts that may occur. These are connect, read, write, and pool timeouts.',
    );
    // In HTTPX's docs most passages name HTTPX: the collection's subject, which a passage need not repeat.
    const about = [
      chunk('HTTPX', 'HTTPX is a fully featured HTTP client for Python 3.'),
      chunk('Clients', 'An HTTPX Client is what you should use for connection pooling.'),
    ];
    assert.equal(
      answer('What are the four types of timeout in HTTPX?', [timeouts, ...about]).split('\n')[0],
      'These are connect, read, write, and pool timeouts. [E1]',
    );
  });

  it('never answers with a lead-in whose content follows it', () => {
    const rules = chunk(
      'Ownership',
      "First, let's take a look at the ownership rules.\n\n- Each value in Rust has an owner.\n- There can only be one owner at a time.",
    );
    const text = answer('Tell me about the ownership rules.', [rules]);
    assert.ok(!text.startsWith('First, let'), text);
    assert.match(text.split('\n')[0], /Each value in Rust has an owner/);
    const hooks = chunk(
      'Event hooks',
      'To register a hook for every request, do this:\n\nclient = httpx.Client(event_hooks={"request": [log_request]})',
    );
    const hook = answer('Tell me about registering a hook for every request.', [hooks]);
    assert.ok(hook.startsWith('```\nclient = httpx.Client(event_hooks={"request": [log_request]})\n```'), hook);
  });

  it('says "not found" when the evidence lacks the answer type or the question\'s names', () => {
    const ceo = chunk('Company history', 'Marit Halvorsen retired in 2018 and Jonas Eide became chief executive officer.');
    assert.equal(
      answer('What is the favourite colour of the chief executive officer?', [ceo]),
      'Not found in the documents: the favourite colour of the chief executive officer.',
    );
    assert.equal(
      answer('Which Halvorsen sensor was sent to Mars?', [ceo]),
      'Not found in the documents: nothing about "Mars" in the retrieved passages.',
    );
    const http2 = chunk('HTTP/2', 'HTTP/2 support is not enabled by default. Install with pip:\n\n$ pip install httpx[http2]');
    assert.match(answer('How do I enable HTTP/3 over QUIC in HTTPX?', [http2]), /^Not found in the documents: nothing about .*"QUIC"/);
    const policy = chunk('Release notes', 'The project moved to a new home page. Contributors are listed on the credits page.');
    assert.match(answer('On what date was version 1.0 of the project released?', [policy]), /^Not found in the documents/);
  });

  it('says "not found" when the passage an answer would quote does not cover the question\'s names, identifiers or how-to object', () => {
    const docs = () => [
      chunk(
        'Loading templates',
        'The simplest way to load templates is a PackageLoader.\n\n```\nenv = Environment(loader=PackageLoader("app"))\n```',
        ['Loading templates'],
      ),
      chunk('Whitespace', 'With trim_blocks the first newline after a block tag is removed, as a PHP template would do.', ['Whitespace']),
      chunk('Filters', 'Filters are separated from the variable by a pipe symbol.', ['Filters']),
    ];
    const php = answer('How do I load PHP templates?', docs());
    assert.match(php, /^Not found in the documents: nothing about "PHP" in the passage the answer would come from\.$/, php);
    const object = answer('How do I configure the template cache size limit?', docs());
    assert.match(object, /^Not found in the documents/, object);
    const covered = answer('How do I load templates from a package?', docs());
    assert.ok(covered.startsWith('```\nenv = Environment(loader=PackageLoader("app"))\n``` [E1]'), covered);
  });

  it('does not abstain on a question that asks several things, or on a name whose own passage the answer cites', () => {
    const errors = [
      chunk('Exceptions', 'A ConnectTimeout is raised when a connection cannot be made in time. It is a TimeoutException.', ['Exceptions']),
      chunk('Status codes', 'Calling raise_for_status() raises an HTTPStatusError for 4xx and 5xx responses.', ['Status codes']),
      chunk('Quickstart', 'Requests are sent with the get, post and put functions.', ['Quickstart']),
    ];
    const several = answer('Which exception is raised when connecting times out, and what does raise_for_status() raise?', errors);
    assert.ok(!several.startsWith('Not found'), several);
    const hop = [
      chunk('Ocean Drive (series)', 'Ocean Drive is an animated series about a lifeguard team, produced for Cartoon Network.'),
      chunk('Mara Quill', 'Mara Quill is a voice actress. Her roles include the animated series Ocean Drive and Star Pilots.'),
      chunk('Star Pilots', 'Star Pilots is a science fiction cartoon.'),
    ];
    const bridge = answer("Which of Mara Quill's animated series is about a lifeguard team?", hop);
    assert.ok(!bridge.startsWith('Not found'), bridge);
  });
});
