/**
 * The details record is part of the dataset database's format (people.details): a database keeps
 * what the code of its version derived, and a server reads it as today's code would have made it.
 * Its fields are pinned here beside the version, so changing what it holds without bumping
 * DATASET_DATABASE_VERSION (which makes servers refuse older files) fails this test first.
 */
import { describe, expect, it } from 'vitest';
import { DATASET_DATABASE_VERSION } from '../../shared/sources/dataset/database/schema.js';
import { datasetFixtures as fx } from '../../shared/sources/dataset/fixtures.js';
import { generateDataset } from '../../shared/sources/dataset/generate.js';
import { profileSections } from '../../shared/sources/dataset/model.js';
import {
  DETAILS_POSITIONS,
  personDetailsOf,
  SKILLS_PREVIEW,
} from '../../shared/sources/dataset/person-details.js';

const dataset = generateDataset();
const found = dataset.people.find((person) => person.username === fx.richProfile.username);
if (!found) throw new Error(`the sample has no ${fx.richProfile.username}`);
const rich = found;

describe('personDetailsOf', () => {
  it('holds the fields of database version 3, and only those', () => {
    expect(DATASET_DATABASE_VERSION).toBe(3);
    expect(Object.keys(personDetailsOf(rich)).sort()).toEqual([
      'education',
      'fullName',
      'headline',
      'internalId',
      'location',
      'networkUrl',
      'positions',
      'publicId',
      'sectionSizes',
      'skillNames',
      'summary',
      'username',
      'withheld',
    ]);
  });

  it('keeps the first positions and skill names, and the size of every section of the whole record', () => {
    const person = rich;
    const details = personDetailsOf(person);
    expect(details.positions).toEqual(person.positions.slice(0, DETAILS_POSITIONS));
    expect(details.skillNames).toEqual(person.skills.slice(0, SKILLS_PREVIEW).map((skill) => skill.name));
    expect(details.education).toEqual(person.education);
    // The sizes that decide 'incomplete' (a preview of a longer list) and the one named apart from its list.
    expect(details.sectionSizes.experience).toBe(person.positions.length);
    expect(details.sectionSizes.skills).toBe(person.skills.length);
    expect(details.sectionSizes.companyInterests).toBe(person.interests.length);
    expect(Object.keys(details.sectionSizes).sort()).toEqual([...profileSections].sort());
    expect(person.skills.length).toBeGreaterThan(SKILLS_PREVIEW);
  });
});
