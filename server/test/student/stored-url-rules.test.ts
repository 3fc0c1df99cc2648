import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlistDict } from '../../src/exb/plist.js';
import { createStudentHarness, QUIZ, type StudentHarness } from './harness.js';

// Rules the policy editor refuses today (see `exactRuleMismatch` in the shared policy module) may be stored from
// before: students still get a configuration. A rule with a faithful form (`storedRuleReading`: a `+` in the query
// means a space) is written in that form; one without is written as it was saved.

describe('a stored policy with exact rules refused at save time since', () => {
  let h: StudentHarness;
  beforeAll(async () => {
    h = await createStudentHarness({ withoutLmsApi: true });
  });
  afterAll(() => h.close());

  it('still builds the students’ configuration', async () => {
    await h.courseDefaults({
      urlRules: [
        { match: 'exact', value: 'https://tool.example.com/?lang=en' },
        { match: 'exact', value: 'https://tool.example.com/search?q=a+b' },
      ],
      externalTools: [
        {
          id: 'calc',
          label: 'Calculator',
          url: 'https://calc.example.com/',
          resourceRules: [{ match: 'exact', value: 'https://cdn.example.com/files/a%2Fb' }],
          managedByAdmin: false,
          enabled: true,
        },
      ],
    });
    await h.enforce(QUIZ);
    const { opened } = await h.start();
    const expressions = (opened.settings.get('URLFilterRules') as PlistDict[]).map((rule) => rule.get('expression'));
    expect(expressions).toEqual(
      expect.arrayContaining([
        'https://.tool.example.com/?lang=en',
        'https://.tool.example.com:443/search?q=a%20b',
        'https://.calc.example.com/',
        'https://.cdn.example.com/files/a%2Fb',
      ]),
    );
    expect(expressions).not.toContain('https://.tool.example.com/search?q=a+b');
  });
});
