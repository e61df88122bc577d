/**
 * Run functions of the profile family.
 */
import { LATEST_ACTIVITY_ITEMS, profileOperations } from '../../schemas/operations/profiles.js';
import { cursorOperation } from '../paging/cursors.js';
import { PAGE_SIZE, startPage } from '../paging/pages.js';
import {
  implement,
  type OperationImplementation,
  type RunContext,
  type RunnerRuntime,
  type RunResult,
} from '../pipeline/operation.js';
import type { ActivityKind, DataSource, ProfileListName } from '../sources/data-source.js';
import { type DataDependencies, defaultDataDependencies, profileRef } from './data-runtime.js';

type ProfileIdentifier = { username?: string; url?: string; publicId?: string };

/** The catalog entries this module runs: a function of this family serves only these. */
export { profileOperations as operations };

export function createImplementations(
  runtime: RunnerRuntime,
  deps: DataDependencies = defaultDataDependencies(runtime),
): OperationImplementation[] {
  const { source } = deps;
  const list =
    (name: ProfileListName, field: string) =>
    async (input: ProfileIdentifier, { signal }: RunContext): Promise<RunResult> => ({
      data: { [field]: await source.profileList(profileRef(input), name, signal) },
    });
  const activity = (kind: ActivityKind) => activityPage(deps, kind);

  return implement(profileOperations, {
    'profiles.details': async (input, { signal }) => {
      const { profile, sections, skillsHasMore } = await source.profileDetails(profileRef(input), signal);
      return { data: profile, meta: { sections, skills: { hasMore: skillsHasMore } } };
    },
    'profiles.contact': async (input, { signal }) => ({
      data: await source.profileContact(profileRef(input), signal),
    }),
    'profiles.experience': list('positions', 'positions'),
    'profiles.education': list('education', 'education'),
    'profiles.certifications': list('certifications', 'certifications'),
    'profiles.courses': list('courses', 'courses'),
    'profiles.volunteer-experience': list('volunteerExperience', 'volunteerExperience'),
    'profiles.languages': list('languages', 'languages'),
    'profiles.honors': list('honors', 'honors'),
    'profiles.organizations': list('organizations', 'organizations'),
    'profiles.skills': async (input, { signal }) => {
      const start = input.start ?? 0;
      const page = startPage(
        start,
        await source.profileSkills(profileRef(input), { start, count: PAGE_SIZE }, signal),
      );
      return { data: { skills: page.items }, meta: { paging: page.paging } };
    },
    'profiles.company-interests': async (input, { signal }) => {
      const start = input.start ?? 0;
      const window = await source.profileCompanyInterests(
        profileRef(input),
        { start, count: PAGE_SIZE },
        signal,
      );
      const page = startPage(start, window);
      return { data: { companyInterests: page.items }, meta: { paging: page.paging } };
    },
    'profiles.posts': activity('posts'),
    'profiles.comments': activity('comments'),
    'profiles.reactions': activity('reactions'),
    'profiles.similar': async ({ username }, { signal }) => ({
      data: { profiles: await source.similarProfiles(username, signal) },
    }),
    'profiles.counts': async ({ username }, { signal }) => ({
      data: { counts: await sectionCounts(source, username, signal) },
    }),
    'profiles.top-positions': async ({ username }, { signal }) => {
      const positions = await source.profileList({ username }, 'positions', signal);
      const current = positions.filter((position) => position.isCurrent);
      // Positions are newest first, so the first one is the most recent when none is current.
      return { data: { positions: current.length > 0 ? current : positions.slice(0, 1) } };
    },
    'profiles.sections': async ({ username }, { signal }) => ({
      data: { sections: (await source.profileDetails({ username }, signal)).sections },
    }),
    'profiles.latest-activity': async ({ username }, { signal }) => {
      const kinds = ['posts', 'comments', 'reactions'] as const;
      const latest = await Promise.all(kinds.map((kind) => newestActivity(source, username, kind, signal)));
      return { data: Object.fromEntries(kinds.map((kind, index) => [kind, latest[index]])) };
    },
  });
}

/** Sizes of the profile's sections; null where the source withholds the section. */
async function sectionCounts(source: DataSource, username: string, signal: AbortSignal) {
  const ref = { username };
  const { sections } = await source.profileDetails(ref, signal);
  const size = (section: string, read: () => Promise<number>) =>
    sections[section] === 'unavailable' ? Promise.resolve(null) : read();
  const listSize = (name: ProfileListName) => () =>
    source.profileList(ref, name, signal).then((items) => items.length);
  const one = { start: 0, count: 1 };
  const [positions, education, skills, certifications, courses, volunteerExperience, companyInterests] =
    await Promise.all([
      size('experience', listSize('positions')),
      size('education', listSize('education')),
      size('skills', () => source.profileSkills(ref, one, signal).then((window) => window.total)),
      size('certifications', listSize('certifications')),
      size('courses', listSize('courses')),
      size('volunteerExperience', listSize('volunteerExperience')),
      size('companyInterests', () =>
        source.profileCompanyInterests(ref, one, signal).then((window) => window.total),
      ),
    ]);
  return { positions, education, skills, certifications, courses, volunteerExperience, companyInterests };
}

/**
 * The newest items of one activity stream, reading pages until there are enough or the stream ends:
 * a page may be short or empty while older items exist.
 */
async function newestActivity(source: DataSource, username: string, kind: ActivityKind, signal: AbortSignal) {
  const items: unknown[] = [];
  let position: string | null = null;
  do {
    const page: { items: unknown[]; next: string | null } = await source.profileActivity(
      username,
      kind,
      position,
      signal,
    );
    items.push(...page.items);
    position = page.next;
  } while (position !== null && items.length < LATEST_ACTIVITY_ITEMS);
  return items.slice(0, LATEST_ACTIVITY_ITEMS);
}

/** One cursor page of a profile's activity stream; the cursor is bound to operation, account, username. */
function activityPage(
  { source, cursors }: { source: DataSource; cursors: DataDependencies['cursors'] },
  kind: ActivityKind,
) {
  return async (input: { username: string; cursor?: string }, context: RunContext): Promise<RunResult> => {
    const binding = {
      operation: cursorOperation(context.operationId, context.api),
      accountId: context.accountId,
      subject: input.username.normalize('NFC').toLowerCase(),
    };
    const position = input.cursor ? await cursors.resume(input.cursor, binding) : null;
    const page = await source.profileActivity(input.username, kind, position, context.signal);
    const nextCursor = page.next === null ? null : await cursors.issue(binding, page.next);
    return { data: { [kind]: page.items }, meta: { paging: { hasMore: nextCursor !== null, nextCursor } } };
  };
}
