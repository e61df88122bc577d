/**
 * The profile sections only /api/v2 reads: languages, honors and organizations. Drawn from a random
 * stream of each person's own (seeded from the dataset seed and the person's internal id), so adding
 * them changes nothing else the generator draws: every other record stays as it was.
 */
import type { Honor, Language, Organization, Position } from '../../../schemas/records.js';
import { NOW_MONTH } from './context.js';
import { createRandom, type Random } from './random.js';

/** The language of a country, besides English, which every profile lists. */
const COUNTRY_LANGUAGES: ReadonlyMap<string, string> = new Map([
  ['Brazil', 'Portuguese'],
  ['Bulgaria', 'Bulgarian'],
  ['China', 'Mandarin Chinese'],
  ['France', 'French'],
  ['Germany', 'German'],
  ['India', 'Hindi'],
  ['Israel', 'Hebrew'],
  ['Italy', 'Italian'],
  ['Japan', 'Japanese'],
  ['Kenya', 'Swahili'],
  ['Mexico', 'Spanish'],
  ['Netherlands', 'Dutch'],
  ['Poland', 'Polish'],
  ['South Korea', 'Korean'],
  ['Spain', 'Spanish'],
  ['Sweden', 'Swedish'],
  ['Switzerland', 'German'],
  ['United Arab Emirates', 'Arabic'],
]);
const SECOND_LANGUAGES = ['French', 'German', 'Spanish', 'Italian', 'Portuguese', 'Japanese', 'Dutch'];

const HONORS = [
  "Dean's List",
  'Employee of the Year',
  'Hackathon winner',
  'Best Paper Award',
  'Innovation Award',
  'Customer Excellence Award',
  'Graduated with distinction',
];
const ORGANIZATIONS = [
  { name: 'Data Engineering Guild', roles: ['Member', 'Meetup organizer'] },
  { name: 'Women in Tech Network', roles: ['Member', 'Mentor'] },
  { name: 'Product Managers Forum', roles: ['Member', 'Speaker'] },
  { name: 'Open Source Alliance', roles: ['Contributor', 'Member'] },
  { name: 'Finance Professionals Circle', roles: ['Member', 'Board member'] },
  { name: 'Design Systems Collective', roles: ['Member', 'Workshop lead'] },
];

export interface ProfileExtras {
  languages: Language[];
  honors: Honor[];
  organizations: Organization[];
}

/** A 32-bit hash of a string (FNV-1a), to seed a person's own stream. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) value = Math.imul(value ^ text.charCodeAt(i), 0x01000193);
  return value >>> 0;
}

const monthOf = (month: number) => ({ year: Math.floor(month / 12), month: (month % 12) + 1 });

export function profileExtras(
  seed: number,
  internalId: string,
  person: { profile?: 'rich' | 'bare'; country: string; positions: readonly Position[] },
): ProfileExtras {
  if (person.profile === 'bare') return { languages: [], honors: [], organizations: [] };
  const rng = createRandom((seed ^ hash(internalId)) >>> 0);
  const atLeast = person.profile === 'rich' ? 1 : 0;
  return {
    languages: languagesOf(rng, person.country),
    honors: honorsOf(rng, person.positions, atLeast),
    organizations: organizationsOf(rng, atLeast),
  };
}

function languagesOf(rng: Random, country: string): Language[] {
  const native = COUNTRY_LANGUAGES.get(country);
  const languages: Language[] = native
    ? [
        { name: native, proficiency: 'native_or_bilingual' },
        { name: 'English', proficiency: rng.pick(['professional_working', 'full_professional'] as const) },
      ]
    : [{ name: 'English', proficiency: 'native_or_bilingual' }];
  if (rng.chance(0.3)) {
    const other = rng.pick(SECOND_LANGUAGES.filter((name) => name !== native));
    languages.push({ name: other, proficiency: rng.pick(['elementary', 'limited_working'] as const) });
  }
  return languages;
}

function honorsOf(rng: Random, positions: readonly Position[], atLeast: number): Honor[] {
  const count = Math.max(atLeast, rng.weighted([0, 1, 2], [60, 30, 10]));
  return rng.sample(HONORS, count).map((title) => {
    const position = positions.length > 0 ? rng.pick(positions) : undefined;
    return {
      title,
      issuer: position?.companyName ?? null,
      date: monthOf(NOW_MONTH - rng.int(3, 96)),
      description: null,
    };
  });
}

function organizationsOf(rng: Random, atLeast: number): Organization[] {
  const count = Math.max(atLeast, rng.weighted([0, 1, 2], [65, 28, 7]));
  return rng.sample(ORGANIZATIONS, count).map((organization) => {
    const start = NOW_MONTH - rng.int(6, 120);
    return {
      name: organization.name,
      role: rng.pick(organization.roles),
      startDate: monthOf(start),
      endDate: rng.chance(0.3) ? monthOf(Math.min(NOW_MONTH - 1, start + rng.int(6, 36))) : null,
    };
  });
}
